package dev.projections.demo.api;

import java.math.BigDecimal;
import java.time.Duration;

/**
 * Path, query and JSON values checked here rather than by the JAX-RS runtime: its conversions wrap numbers
 * silently (a JSON 4294967297 became 1) or refuse them with 404 and a message naming its own classes. Each
 * refusal is a 400 naming the field and the value.
 */
final class RequestValues {

    static final int MAX_QUANTITY = 1_000_000;
    /** The write model's column, DECIMAL(12,2). */
    static final BigDecimal MAX_PRICE = new BigDecimal("9999999999.99");
    static final int MAX_TENANT_LENGTH = 64;

    private RequestValues() {
    }

    /** A whole number in {@code min..max}; {@code null} or blank gives {@code fallback}. */
    static long whole(String name, String value, long fallback, long min, long max) {
        if (value == null || value.isBlank()) {
            return fallback;
        }
        long parsed;
        try {
            parsed = Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            throw new BadRequestJson(name + " must be a whole number, was \"" + shortened(value) + "\"");
        }
        if (parsed < min || parsed > max) {
            throw new BadRequestJson(name + " must be " + min + ".." + max + ", was " + parsed);
        }
        return parsed;
    }

    /** A duration as the settings write it ({@code 0}, {@code 200ms}, {@code 2s}), from zero up to {@code max}. */
    static Duration duration(String name, String value, Duration max) {
        Duration parsed;
        try {
            parsed = value.trim().equals("0") ? Duration.ZERO : dev.projections.config.Durations.parse(value);
        } catch (IllegalArgumentException e) {
            throw new BadRequestJson(name + " must be a duration such as 0, 200ms or 2s, was \"" + shortened(value) + "\"");
        }
        if (parsed.isNegative() || parsed.compareTo(max) > 0) {
            throw new BadRequestJson(name + " must be from 0 to " + dev.projections.config.Durations.format(max)
                    + ", was \"" + shortened(value) + "\"");
        }
        return parsed;
    }

    /** {@code true} or {@code false}, nothing else. */
    static boolean bool(String name, String value) {
        if ("true".equalsIgnoreCase(value.trim()) || "false".equalsIgnoreCase(value.trim())) {
            return Boolean.parseBoolean(value.trim());
        }
        throw new BadRequestJson(name + " must be true or false, was \"" + shortened(value) + "\"");
    }

    static long orderId(String value) {
        return whole("order id", value, -1, 1, Long.MAX_VALUE);
    }

    static int quantity(BigDecimal quantity) {
        if (quantity == null) {
            throw new BadRequestJson("a line needs a quantity");
        }
        if (quantity.signum() != 0 && quantity.stripTrailingZeros().scale() > 0) {
            throw new BadRequestJson("quantity must be a whole number, was " + shown(quantity));
        }
        if (quantity.signum() < 0 || quantity.compareTo(BigDecimal.valueOf(MAX_QUANTITY)) > 0) {
            throw new BadRequestJson("quantity must be 0.." + MAX_QUANTITY + ", was " + shown(quantity));
        }
        return quantity.intValueExact();
    }

    static BigDecimal price(BigDecimal price) {
        if (price == null) {
            throw new BadRequestJson("a line needs a price");
        }
        if (price.signum() < 0 || price.compareTo(MAX_PRICE) > 0) {
            throw new BadRequestJson("price must be 0.." + MAX_PRICE.toPlainString() + ", was " + shown(price));
        }
        if (price.signum() != 0 && price.stripTrailingZeros().scale() > 2) {
            throw new BadRequestJson("price must have at most 2 decimals, was " + shown(price));
        }
        return price;
    }

    static String tenant(String header) {
        String tenant = header == null ? "" : header.trim();
        if (tenant.length() > MAX_TENANT_LENGTH) {
            throw new BadRequestJson("X-Tenant must be at most " + MAX_TENANT_LENGTH + " characters, was "
                    + tenant.length());
        }
        return tenant;
    }

    /** Plain digits for ordinary numbers, scientific notation for huge or tiny ones (1E+400 has 401 digits). */
    private static String shown(BigDecimal value) {
        return Math.abs(value.precision() - value.scale()) > 30 || value.scale() > 30 ? value.toString()
                : value.toPlainString();
    }

    private static String shortened(String value) {
        return value.length() <= 40 ? value : value.substring(0, 40) + "…";
    }
}
