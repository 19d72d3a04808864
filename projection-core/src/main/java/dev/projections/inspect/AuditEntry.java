package dev.projections.inspect;

import java.time.Instant;

/** One console action as {@code projection_audit} keeps it; {@code id} is 0 before it is written. */
public record AuditEntry(long id, Instant at, String user, String action, String projection, String tenant,
                         String entityId, String detail) {

    public static AuditEntry of(Instant at, String user, String action, String projection, String tenant,
                                String entityId, String detail) {
        return new AuditEntry(0, at, user, action, projection, tenant, entityId, detail);
    }
}
