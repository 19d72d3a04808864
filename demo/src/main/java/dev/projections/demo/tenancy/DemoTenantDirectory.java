package dev.projections.demo.tenancy;

import dev.projections.TenantDirectory;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.util.List;

/** The demo's tenants: those its customers belong to. */
@ApplicationScoped
public class DemoTenantDirectory implements TenantDirectory {

    @PersistenceContext(unitName = "demo")
    EntityManager em;

    @Override
    public List<String> tenants() {
        return em.createQuery("SELECT DISTINCT c.tenantId FROM Customer c ORDER BY c.tenantId", String.class)
                .getResultList();
    }
}
