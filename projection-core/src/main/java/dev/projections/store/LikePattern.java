package dev.projections.store;

/** LIKE patterns for statements written {@code LIKE ? ESCAPE '!'}: '!' is plain on every database we run on. */
public final class LikePattern {

    private LikePattern() {
    }

    /** The pattern of texts starting with {@code prefix}, its own {@code %}, {@code _} and {@code !} taken literally. */
    public static String startingWith(String prefix) {
        return prefix.replace("!", "!!").replace("%", "!%").replace("_", "!_") + "%";
    }
}
