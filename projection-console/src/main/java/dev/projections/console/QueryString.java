package dev.projections.console;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A URL's query string built a parameter at a time, each name and value percent-encoded as UTF-8 with a space as
 * {@code %20}: the one encoder of the console's bookmarkable links and the management API's page links.
 */
public final class QueryString {

    private final List<String> parts = new ArrayList<>();

    /** Adds {@code name=value}, {@code name=} for an empty value; nothing when {@code value} is {@code null}. */
    public QueryString add(String name, String value) {
        if (value != null) {
            parts.add(encode(name) + "=" + encode(value));
        }
        return this;
    }

    /** Adds {@code name=value} unless {@code value} is {@code null} or empty (a filter left blank). */
    public QueryString addNonEmpty(String name, String value) {
        return value == null || value.isEmpty() ? this : add(name, value);
    }

    /** {@code value} percent-encoded for a query or a path segment ({@code %20} for a space, never {@code +}). */
    public static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
    }

    /** The parameters added, joined by {@code &}, without a leading {@code ?}; empty when none were. */
    @Override
    public String toString() {
        return String.join("&", parts);
    }
}
