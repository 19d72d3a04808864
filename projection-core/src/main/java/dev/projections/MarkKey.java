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

    /**
     * {@code id} as an entity id of {@code projection} (docs/contract.md §2): not null, not blank, at most
     * {@value #MAX_ID_LENGTH} characters, no control characters; otherwise an {@link IllegalArgumentException} naming the
     * value and what is allowed.
     */
    public static String checkedId(String id, String projection) {
        if (id == null) {
            throw new IllegalArgumentException("an id of projection " + projection + " is null");
        }
        if (id.isBlank()) {
            throw new IllegalArgumentException("an id of projection " + projection + " is blank: " + quoted(id));
        }
        if (id.length() > MAX_ID_LENGTH) {
            throw new IllegalArgumentException("id " + quoted(id.substring(0, 40) + "…") + " of projection " + projection
                    + " is " + id.length() + " characters long; at most " + MAX_ID_LENGTH + " are allowed");
        }
        if (id.chars().anyMatch(Character::isISOControl)) {
            throw new IllegalArgumentException("id " + quoted(id.replaceAll("\\p{Cntrl}", "?"))
                    + " of projection " + projection + " contains control characters");
        }
        return id;
    }

    /** {@code tenant}, {@code ""} for {@code null}, if not longer than {@value #MAX_TENANT_LENGTH} characters. */
    public static String checkedTenant(String tenant) {
        if (tenant != null && tenant.length() > MAX_TENANT_LENGTH) {
            throw new IllegalArgumentException("tenant " + quoted(tenant) + " is " + tenant.length()
                    + " characters long; at most " + MAX_TENANT_LENGTH + " are allowed");
        }
        return tenant == null ? "" : tenant;
    }

    private static String quoted(String value) {
        return "\"" + value + "\"";
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
