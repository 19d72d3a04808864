package dev.projections.console;

import java.text.NumberFormat;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/** How the console writes numbers and times: grouped digits, ages ("3 min ago"), exact UTC times for hovering. */
public final class Format {

    private static final DateTimeFormatter EXACT = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss 'UTC'")
            .withZone(ZoneOffset.UTC);

    private Format() {
    }

    public static String number(long value) {
        return NumberFormat.getIntegerInstance(Locale.ENGLISH).format(value);
    }

    public static String age(Duration age) {
        long seconds = Math.max(0, age.toSeconds());
        if (seconds < 60) {
            return seconds + " s";
        }
        if (seconds < 3600) {
            return seconds / 60 + " min";
        }
        if (seconds < 86_400) {
            return seconds / 3600 + " h " + (seconds % 3600) / 60 + " min";
        }
        return seconds / 86_400 + " d " + (seconds % 86_400) / 3600 + " h";
    }

    /** "3 min ago", or "in 3 min" for an instant still to come; "" for none. */
    public static String relative(Instant instant, Instant now) {
        if (instant == null) {
            return "";
        }
        Duration between = Duration.between(instant, now);
        return between.isNegative() ? "in " + age(between.negated()) : age(between) + " ago";
    }

    public static String exact(Instant instant) {
        return instant == null ? "" : EXACT.format(instant);
    }
}
