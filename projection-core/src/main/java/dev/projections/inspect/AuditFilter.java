package dev.projections.inspect;

import java.time.Instant;

/**
 * Which audit entries a page or an export shows (docs/contract.md §12): each part {@code null} for any — one user, one
 * action, one projection, and a time range {@code from} (inclusive) to {@code to} (exclusive). The user, action and
 * projection filters match exactly, so that each is served by its index (changeset 014) instead of a scan.
 */
public record AuditFilter(String user, String action, String projection, Instant from, Instant to) {

    public static final AuditFilter ALL = new AuditFilter(null, null, null, null, null);

    public AuditFilter {
        user = blankToNull(user);
        action = blankToNull(action);
        projection = blankToNull(projection);
        if (from != null && to != null && !from.isBefore(to)) {
            throw new IllegalArgumentException("an audit time range must end after it starts, was from " + from
                    + " to " + to);
        }
    }

    private static String blankToNull(String value) {
        return value == null || value.isBlank() ? null : value.trim();
    }
}
