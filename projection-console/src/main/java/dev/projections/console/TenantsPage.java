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

    @Inject
    ConsoleReads reads;

    private List<TenantLine> lines;

    public List<TenantLine> getLines() {
        if (lines == null) {
            lines = reads.byTenant().stream().map(TenantLine::new).toList();
        }
        return lines;
    }

    public boolean isTruncated() {
        return getLines().size() >= ConsoleReads.TENANT_LINES;
    }
}
