package dev.projections;

import java.util.Comparator;

/**
 * The key of a mark: one aggregate of one projection in one tenant ({@code ""} when there is none).
 * Ordered the way the pending table's primary key is, so that every statement locking several rows
 * takes them in the same order (docs/contract.md §3 lock order).
 */
public record MarkKey(String projection, String tenantId, String entityId) implements Comparable<MarkKey> {

    /** The longest entity id a mark may have: the width of {@code entity_id} in the product's tables. */
    public static final int MAX_ID_LENGTH = 200;
    /** The longest tenant id a mark may have: the width of {@code tenant_id}. */
    public static final int MAX_TENANT_LENGTH = 64;

    private static final Comparator<MarkKey> KEY_ORDER = Comparator.comparing(MarkKey::projection)
            .thenComparing(MarkKey::tenantId)
            .thenComparing(MarkKey::entityId);

    public MarkKey {
        if (projection == null || tenantId == null || entityId == null) {
            throw new IllegalArgumentException("a mark key needs projection, tenant and id, was "
                    + projection + "/" + tenantId + "/" + entityId);
        }
    }

    @Override
    public int compareTo(MarkKey other) {
        return KEY_ORDER.compare(this, other);
    }

    @Override
    public String toString() {
        return projection + "[" + tenantId + "]/" + entityId;
    }
}
