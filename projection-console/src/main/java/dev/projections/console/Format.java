package dev.projections.console;

import java.text.NumberFormat;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/**
 * How the console writes numbers and times: grouped digits, ages ("3 min ago"), exact UTC times for hovering. Units and
 * "ago" are texts of the bundle ({@code format.*}); the exact time is a fixed ISO-like form, the same in every language.
 */
public final class Format {

    private static final DateTimeFormatter EXACT = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss 'UTC'")
            .withZone(ZoneOffset.UTC);

    private Format() {
    }

    /** Grouped digits in the view's language: 12,345 in English, as {0,number,integer} in a text. */
    public static String number(long value) {
        return NumberFormat.getIntegerInstance(Text.locale()).format(value);
    }

    public static String age(Duration age) {
        long seconds = Math.max(0, age.toSeconds());
        if (seconds < 60) {
            return Text.of("format.seconds", seconds);
        }
        if (seconds < 3600) {
            return Text.of("format.minutes", seconds / 60);
        }
        if (seconds < 86_400) {
            return Text.of("format.hours", seconds / 3600, (seconds % 3600) / 60);
        }
        return Text.of("format.days", seconds / 86_400, (seconds % 86_400) / 3600);
    }

    /** A lag or a refresh's time from microseconds: "0.8 ms", "240 ms", "2.4 s", from a minute on as an age. */
    public static String micros(long micros) {
        if (micros < 1_000_000) {
            double millis = micros / 1_000.0;
            return Text.of("format.milliseconds", decimal(millis, millis < 10 ? 1 : 0));
        }
        if (micros < 60_000_000) {
            return Text.of("format.seconds-decimal", decimal(micros / 1_000_000.0, 1));
        }
        return age(Duration.ofNanos(micros * 1_000));
    }

    private static String decimal(double value, int digits) {
        NumberFormat format = NumberFormat.getNumberInstance(Text.locale());
        format.setMaximumFractionDigits(digits);
        format.setMinimumFractionDigits(digits);
        return format.format(value);
    }

    /** "3 min ago", or "in 3 min" for an instant still to come; "" for none. */
    public static String relative(Instant instant, Instant now) {
        if (instant == null) {
            return "";
        }
        Duration between = Duration.between(instant, now);
        return between.isNegative() ? Text.of("format.in", age(between.negated())) : Text.of("format.ago", age(between));
    }

    public static String exact(Instant instant) {
        return instant == null ? "" : EXACT.format(instant);
    }
}
