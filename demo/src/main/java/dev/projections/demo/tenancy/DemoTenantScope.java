package dev.projections.demo.tenancy;

import dev.projections.TenantScope;
import jakarta.enterprise.context.ApplicationScoped;

/** Runs a refresh (and a rebuild's {@code ids}) as the mark's tenant. */
@ApplicationScoped
public class DemoTenantScope implements TenantScope {

    @Override
    public Entered enter(String tenantId) {
        String previous = DemoTenancy.enter(tenantId);
        return () -> DemoTenancy.restore(previous);
    }
}
