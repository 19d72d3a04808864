package dev.projections.console;

import dev.projections.inspect.TenantCounts;

/** A line of the tenants page: one projection and tenant's counts (getters for EL). */
public final class TenantLine {
    private final TenantCounts counts;

    TenantLine(TenantCounts counts) {
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
