package dev.projections;

import java.time.Instant;

/**
 * Which parked marks of one projection an operator action touches: all of them, one tenant's, one mark, or those
 * whose last error starts with a text. Tenant {@code null} means every tenant ({@code ""} is the empty tenant).
 * {@code parkedBy}, when set, leaves out marks parked after that instant: a bulk action confirmed on a list
 * touches no mark parked after the list was drawn.
 */
public record ParkedSelection(String projection, String tenant, String entityId, String errorPrefix,
                              Instant parkedBy) {

    public ParkedSelection(String projection, String tenant, String entityId, String errorPrefix) {
        this(projection, tenant, entityId, errorPrefix, null);
    }

    /** This selection without the marks parked after {@code instant}. */
    public ParkedSelection parkedBy(Instant instant) {
        return new ParkedSelection(projection, tenant, entityId, errorPrefix, instant);
    }

    public ParkedSelection {
        if (projection == null || projection.isBlank()) {
            throw new IllegalArgumentException("projection must be named, was " + projection);
        }
        if (entityId != null && tenant == null) {
            throw new IllegalArgumentException("a single mark needs its tenant (\"\" for none), id was " + entityId);
        }
        if (errorPrefix != null && (errorPrefix.isEmpty() || errorPrefix.length() > 500)) {
            throw new IllegalArgumentException("error prefix must be 1..500 characters (null for any error), was "
                    + errorPrefix.length());
        }
    }

    /** Every parked mark of {@code projection}. */
    public static ParkedSelection all(String projection) {
        return new ParkedSelection(projection, null, null, null);
    }

    /** The parked marks of {@code projection} in {@code tenant}. */
    public static ParkedSelection inTenant(String projection, String tenant) {
        return new ParkedSelection(projection, requireTenant(tenant), null, null);
    }

    /** One mark. */
    public static ParkedSelection mark(String projection, String tenant, String entityId) {
        if (entityId == null) {
            throw new IllegalArgumentException("entity id must not be null");
        }
        return new ParkedSelection(projection, requireTenant(tenant), entityId, null);
    }

    /** The parked marks of {@code projection} whose last error starts with {@code prefix}. */
    public static ParkedSelection withErrorStartingWith(String projection, String prefix) {
        if (prefix == null) {
            throw new IllegalArgumentException("error prefix must not be null");
        }
        return new ParkedSelection(projection, null, null, prefix);
    }

    private static String requireTenant(String tenant) {
        if (tenant == null) {
            throw new IllegalArgumentException("tenant must not be null (use \"\" for none)");
        }
        return tenant;
    }
}
