package dev.projections.ops;

import dev.projections.MarkKey;
import dev.projections.refresh.ProjectionCatalog;

/** The operations' argument rules (docs/contract.md §2): every message names the bad value and what is allowed. */
public final class Arguments {

    private Arguments() {
    }

    /** {@code projection}, if deployed; otherwise an {@link UnknownProjection} listing the known ones. */
    public static String projection(String projection, ProjectionCatalog catalog) {
        if (projection == null || !catalog.names().contains(projection)) {
            throw new UnknownProjection(projection, catalog.names());
        }
        return projection;
    }

    public static String id(String id, String projection) {
        if (id == null) {
            throw new IllegalArgumentException("an id of projection " + projection + " is null");
        }
        if (id.isBlank()) {
            throw new IllegalArgumentException("an id of projection " + projection + " is blank: " + quoted(id));
        }
        if (id.length() > MarkKey.MAX_ID_LENGTH) {
            throw new IllegalArgumentException("id " + quoted(id.substring(0, 40) + "…") + " of projection " + projection
                    + " is " + id.length() + " characters long; at most " + MarkKey.MAX_ID_LENGTH + " are allowed");
        }
        if (id.chars().anyMatch(Character::isISOControl)) {
            throw new IllegalArgumentException("id " + quoted(id.replaceAll("\\p{Cntrl}", "?"))
                    + " of projection " + projection + " contains control characters");
        }
        return id;
    }

    /** {@code tenant}, {@code ""} for {@code null}, if not longer than a tenant may be. */
    public static String tenant(String tenant) {
        if (tenant != null && tenant.length() > MarkKey.MAX_TENANT_LENGTH) {
            throw new IllegalArgumentException("tenant " + quoted(tenant) + " is " + tenant.length()
                    + " characters long; at most " + MarkKey.MAX_TENANT_LENGTH + " are allowed");
        }
        return tenant == null ? "" : tenant;
    }

    private static String quoted(String value) {
        return value == null ? "null" : "\"" + value + "\"";
    }
}
