package dev.projections.console;

import dev.projections.ee.admin.ConsoleReads;
import dev.projections.inspect.AuditEntry;
import jakarta.inject.Inject;
import jakarta.faces.view.ViewScoped;
import jakarta.inject.Named;
import java.io.Serializable;
import java.time.Instant;
import java.util.List;

/** The audit log, newest first, 50 at a time ("older" continues below the last id shown). */
@Named("projectionsAudit")
@ViewScoped
public class AuditTrail implements Serializable {

    static final int PAGE = 50;

    /** One entry (getters for EL). */
    public static final class Line implements Serializable {
        private final AuditEntry entry;
        private final Instant now;

        Line(AuditEntry entry, Instant now) {
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
            return entry.tenant() == null ? "" : entry.tenant().isEmpty() ? "(none)" : entry.tenant();
        }

        public String getEntityId() {
            return entry.entityId() == null ? "" : entry.entityId();
        }

        public String getDetail() {
            return entry.detail() == null ? "" : entry.detail();
        }
    }

    @Inject
    ConsoleReads reads;

    private List<AuditEntry> entries;
    private Long before;

    public List<Line> getLines() {
        if (entries == null) {
            entries = reads.audit(before, PAGE);
        }
        Instant now = Instant.now();
        return entries.stream().map(entry -> new Line(entry, now)).toList();
    }

    public boolean isHasOlder() {
        return entries != null && entries.size() == PAGE;
    }

    public void older() {
        if (isHasOlder()) {
            before = entries.get(entries.size() - 1).id();
            entries = null;
        }
    }

    public void newest() {
        before = null;
        entries = null;
    }
}
