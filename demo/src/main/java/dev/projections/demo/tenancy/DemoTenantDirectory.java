package dev.projections.demo.tenancy;

import dev.projections.TenantDirectory;
import dev.projections.demo.orders.control.DemoUnit;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import java.util.List;

/** The demo's tenants: those its customers belong to. */
@ApplicationScoped
public class DemoTenantDirectory implements TenantDirectory {

    @Inject
    @DemoUnit // from an EJB of the unit's module, so Payara resolves it whoever calls (DemoEntityManager)
    EntityManager em;

    @Override
    public List<String> tenants() {
        return em.createQuery("SELECT DISTINCT c.tenantId FROM Customer c ORDER BY c.tenantId", String.class)
                .getResultList();
    }
}
