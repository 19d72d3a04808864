package dev.projections.console;

import dev.projections.inspect.AuditEntry;
import java.io.Serializable;
import java.time.Instant;

/** A line of the audit page: one entry (getters for EL). */
public final class AuditLine implements Serializable {
    private final AuditEntry entry;
    private final Instant now;

    AuditLine(AuditEntry entry, Instant now) {
        this.entry = entry;
        this.now = now;
    }

    public String getAt() {
        return Format.relative(entry.at(), now);
    }

    public String getAtExact() {
        return Format.exact(entry.at());
    }

    public String getUser() {
        return entry.user();
    }

    public String getAction() {
        return entry.action();
    }

    public String getProjection() {
        return entry.projection() == null ? "" : entry.projection();
    }

    public String getTenant() {
        return entry.tenant() == null ? "" : entry.tenant().isEmpty() ? Text.of("audit.tenant.none") : entry.tenant();
    }

    public String getEntityId() {
        return entry.entityId() == null ? "" : entry.entityId();
    }

    public String getDetail() {
        return entry.detail() == null ? "" : entry.detail();
    }
}
