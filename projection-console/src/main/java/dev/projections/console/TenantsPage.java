package dev.projections.console;

import dev.projections.ee.admin.ConsoleReads;
import dev.projections.inspect.TenantCounts;
import jakarta.inject.Inject;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Named;
import java.util.List;

/** The per-tenant table: pending and failing marks by projection and tenant. */
@Named("projectionsTenants")
@RequestScoped
public class TenantsPage {

    /** One line (getters for EL). */
    public static final class Line {
        private final TenantCounts counts;

        Line(TenantCounts counts) {
            this.counts = counts;
        }

        public String getProjection() {
            return counts.projection();
        }

        public String getTenant() {
            return counts.tenant();
        }

        public String getTenantShown() {
            return counts.tenant().isEmpty() ? Text.of("tenants.tenant.none") : counts.tenant();
        }

        public String getPending() {
            return Format.number(counts.pending());
        }

        public String getFailing() {
            return Format.number(counts.failing());
        }
    }

    @Inject // not @EJB: Payara leaves @EJB fields of a web-fragment jar null (docs/pitfalls.md #66)
    ConsoleReads reads;

    private List<Line> lines;

    public List<Line> getLines() {
        if (lines == null) {
            lines = reads.byTenant().stream().map(Line::new).toList();
        }
        return lines;
    }

    public boolean isTruncated() {
        return getLines().size() >= ConsoleReads.TENANT_LINES;
    }
}
