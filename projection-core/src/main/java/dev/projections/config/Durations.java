package dev.projections.config;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.time.format.DateTimeParseException;

/** Durations as operators write them: {@code 500ms}, {@code 30s}, {@code 5m}, {@code 2h}, or ISO-8601 {@code PT30S}. */
public final class Durations {

    private static final Pattern SIMPLE = Pattern.compile("(-?\\d+)\\s*(ms|s|m|h|d)");

    private Durations() {
    }

    public static Duration parse(String text) {
        Matcher m = SIMPLE.matcher(text.trim());
        if (m.matches()) {
            long amount = Long.parseLong(m.group(1));
            return switch (m.group(2)) {
                case "ms" -> Duration.ofMillis(amount);
                case "s" -> Duration.ofSeconds(amount);
                case "m" -> Duration.ofMinutes(amount);
                case "h" -> Duration.ofHours(amount);
                default -> Duration.ofDays(amount);
            };
        }
        try {
            return Duration.parse(text.trim());
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("not a duration: " + text, e);
        }
    }

    /**
     * {@code text} as a duration of zero or more, {@code null} when it is none (not a duration, negative, or too large
     * to hold): for a value a caller names in its own message (a header, an annotation, a parameter).
     */
    public static Duration nonNegative(String text) {
        try {
            Duration duration = parse(text);
            return duration.isNegative() ? null : duration;
        } catch (IllegalArgumentException | ArithmeticException e) {
            return null;
        }
    }

    public static String format(Duration duration) {
        if (duration.toMillis() % 1000 != 0) {
            return duration.toMillis() + "ms";
        }
        long seconds = duration.getSeconds();
        if (seconds != 0 && seconds % 86_400 == 0) {
            return seconds / 86_400 + "d";
        }
        if (seconds % 3600 == 0) {
            return seconds / 3600 + "h";
        }
        if (seconds % 60 == 0) {
            return seconds / 60 + "m";
        }
        return seconds + "s";
    }
}
