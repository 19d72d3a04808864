package dev.projections.marking;

import java.util.regex.Pattern;

/** The one rule for projection names (docs/contract.md §2): {@code [a-z0-9._-]}, 1..100 characters. */
public final class ProjectionNames {

    private static final Pattern NAME = Pattern.compile("[a-z0-9._-]{1,100}");

    private ProjectionNames() {
    }

    public static boolean isValid(String name) {
        return name != null && NAME.matcher(name).matches();
    }

    public static void check(String name, String declaredOn) {
        if (!isValid(name)) {
            throw new IllegalStateException("@Projected on entity " + declaredOn + " names projection \"" + name
                    + "\": a projection name must match [a-z0-9._-]{1,100}");
        }
    }
}
