package dev.projections.demo.tenancy;

import dev.projections.TenantResolver;
import jakarta.enterprise.context.ApplicationScoped;

/** The tenant of automatic marks: the demo's sessions have no Hibernate tenant identifier. */
@ApplicationScoped
public class DemoTenantResolver implements TenantResolver {

    @Override
    public String currentTenant() {
        return DemoTenancy.current();
    }
}
