package dev.projections.config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Reads setting values as text and parses them, collecting every invalid one as a problem that names the key and
 * the value, so that a deployment fails once with all of them.
 */
final class ValueParser {
    private final Function<String, String> values;
    final List<String> errors = new ArrayList<>();

    ValueParser(Function<String, String> values) {
        this.values = values;
    }

    private String raw(String key) {
        String value = values.apply(key);
        return value == null ? null : value.trim();
    }

    /** As {@link #bool}, where unset may mean something of its own: {@code fallback} may be {@code null}. */
    Boolean optionalBool(String key, Boolean fallback) {
        String value = raw(key);
        if (value == null || value.isEmpty()) {
            return fallback;
        }
        return bool(key, Boolean.TRUE.equals(fallback));
    }

    boolean bool(String key, boolean fallback) {
        String value = raw(key);
        if (value == null || value.isEmpty()) {
            return fallback;
        }
        if (value.equalsIgnoreCase("true") || value.equalsIgnoreCase("false")) {
            return Boolean.parseBoolean(value);
        }
        errors.add(key + " must be true or false, was \"" + value + "\"");
        return fallback;
    }

    /** A name that goes into SQL: {@code fallback} when unset, else it must match {@code form}. */
    String identifier(String key, String fallback, Pattern form, String description) {
        String value = raw(key);
        if (value == null || value.isEmpty()) {
            return fallback;
        }
        if (!form.matcher(value).matches()) {
            errors.add(key + " must be " + description + ", was \"" + value + "\"");
            return fallback;
        }
        return value;
    }

    /** One of {@code allowed} (as written, lower case), or {@code fallback} when unset. */
    String oneOf(String key, String fallback, List<String> allowed) {
        String value = raw(key);
        if (value == null || value.isEmpty()) {
            return fallback;
        }
        if (!allowed.contains(value)) {
            errors.add(key + " must be one of " + String.join(", ", allowed) + ", was \"" + value + "\"");
            return fallback;
        }
        return value;
    }

    String text(String key, String fallback) {
        String value = raw(key);
        return value == null || value.isEmpty() ? fallback : value;
    }

    Settings.SchemaMode schema(String key, Settings.SchemaMode fallback) {
        String value = raw(key);
        if (value == null || value.isEmpty()) {
            return fallback;
        }
        try {
            return Settings.SchemaMode.valueOf(value.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            errors.add(key + " must be update or validate, was \"" + value + "\"");
            return fallback;
        }
    }

    int atLeastOne(String key, int fallback) {
        String value = raw(key);
        if (value == null || value.isEmpty()) {
            return fallback;
        }
        try {
            int parsed = Integer.parseInt(value);
            if (parsed >= 1) {
                return parsed;
            }
            errors.add(key + " must be >= 1, was " + value);
        } catch (NumberFormatException e) {
            errors.add(key + " must be a whole number >= 1, was \"" + value + "\"");
        }
        return fallback;
    }

    int whole(String key, int fallback, int min, int max) {
        String value = raw(key);
        if (value == null || value.isEmpty()) {
            return fallback;
        }
        try {
            int parsed = Integer.parseInt(value);
            if (parsed >= min && parsed <= max) {
                return parsed;
            }
            errors.add(key + " must be " + min + ".." + max + ", was " + value);
        } catch (NumberFormatException e) {
            errors.add(key + " must be a whole number " + min + ".." + max + ", was \"" + value + "\"");
        }
        return fallback;
    }

    /** A comma-separated list of IP addresses and CIDR ranges; none when not set. */
    TrustedProxies trustedProxies(String key) {
        String value = raw(key);
        try {
            return TrustedProxies.parse(value);
        } catch (IllegalArgumentException e) {
            errors.add(key + " must list IP addresses and CIDR ranges (such as 10.0.0.0/8, 192.0.2.7, fd00::/8) "
                    + "separated by commas, was \"" + value + "\": " + e.getMessage());
            return TrustedProxies.NONE;
        }
    }

    /** A comma-separated list of fully qualified class names; empty when not set. */
    List<String> classNames(String key) {
        return classNames(key, List.of());
    }

    /** A comma-separated list of fully qualified class names; {@code fallback} when not set. */
    List<String> classNames(String key, List<String> fallback) {
        String value = raw(key);
        if (value == null || value.isEmpty()) {
            return fallback;
        }
        List<String> names = new ArrayList<>();
        for (String name : value.split(",")) {
            String trimmed = name.trim();
            if (!trimmed.matches("[\\p{L}_$][\\p{L}\\p{N}_$]*(\\.[\\p{L}_$][\\p{L}\\p{N}_$]*)*")) {
                errors.add(key + " must list fully qualified class names separated by commas, was \"" + value + "\"");
                return List.of();
            }
            names.add(trimmed);
        }
        return List.copyOf(names);
    }

    /** A duration from zero up to {@code max}. */
    Duration durationOrZero(String key, Duration fallback, Duration max) {
        String value = raw(key);
        if (value == null || value.isEmpty()) {
            return fallback;
        }
        try {
            Duration parsed = value.equals("0") ? Duration.ZERO : Durations.parse(value);
            if (parsed.isNegative() || parsed.compareTo(max) > 0) {
                errors.add(key + " must be a duration from 0 to " + Durations.format(max) + ", was \"" + value + "\"");
                return fallback;
            }
            return parsed;
        } catch (IllegalArgumentException e) {
            errors.add(key + " must be a duration such as 0, 5ms or 20ms, was \"" + value + "\"");
            return fallback;
        }
    }

    Duration duration(String key, Duration fallback) {
        String value = raw(key);
        if (value == null || value.isEmpty()) {
            return fallback;
        }
        try {
            Duration parsed = Durations.parse(value);
            if (parsed.isNegative() || parsed.isZero()) {
                errors.add(key + " must be a positive duration, was \"" + value + "\"");
                return fallback;
            }
            return parsed;
        } catch (IllegalArgumentException e) {
            errors.add(key + " must be a duration such as 500ms, 30s, 5m or 1h, was \"" + value + "\"");
            return fallback;
        }
    }
}
