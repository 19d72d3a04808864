package dev.projections.inspect;

/**
 * Which marks a list shows: one projection (the lists are ordered by due time within a projection, which is
 * what the indexes serve), optionally one tenant ({@code null} for all, {@code ""} for the marks without a
 * tenant), a {@link MarkState}, whether only failing marks ({@code attempts > 0}) are listed, and optionally
 * only those whose last error starts with a text ({@code null}: any).
 */
public record MarkFilter(String projection, String tenant, MarkState state, boolean failingOnly, String errorPrefix) {

    public MarkFilter {
        if (projection == null || projection.isBlank()) {
            throw new IllegalArgumentException("a mark list needs a projection, was " + (projection == null ? "null"
                    : "\"" + projection + "\""));
        }
        if (state == null) {
            state = MarkState.ANY;
        }
        if (errorPrefix != null && errorPrefix.isEmpty()) {
            errorPrefix = null;
        }
        if (errorPrefix != null && errorPrefix.length() > 500) {
            throw new IllegalArgumentException("an error prefix must be at most 500 characters, was "
                    + errorPrefix.length());
        }
    }

    public MarkFilter(String projection, String tenant, MarkState state, boolean failingOnly) {
        this(projection, tenant, state, failingOnly, null);
    }

    public static MarkFilter pending(String projection) {
        return new MarkFilter(projection, null, MarkState.ANY, false);
    }

    public static MarkFilter failing(String projection) {
        return new MarkFilter(projection, null, MarkState.ANY, true);
    }

    public MarkFilter withTenant(String tenant) {
        return new MarkFilter(projection, tenant, state, failingOnly, errorPrefix);
    }

    public MarkFilter withState(MarkState state) {
        return new MarkFilter(projection, tenant, state, failingOnly, errorPrefix);
    }

    public MarkFilter withErrorStartingWith(String prefix) {
        return new MarkFilter(projection, tenant, state, failingOnly, prefix);
    }
}
