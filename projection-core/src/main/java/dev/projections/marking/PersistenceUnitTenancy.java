package dev.projections.marking;

import java.util.Set;
import java.util.concurrent.CopyOnWriteArraySet;
import org.hibernate.context.spi.CurrentTenantIdentifierResolver;
import org.hibernate.engine.spi.SessionFactoryImplementor;

/**
 * The tenant resolvers of the persistence units that have {@code @Projected} entities (docs/contract.md §8): without a
 * {@code TenantResolver} bean, an explicit mark or a rebuild takes its tenant from them. Registered by the
 * integrator when a unit starts and removed when it closes; one registry per deployment, since projection-core
 * sits in the EAR's {@code lib/}.
 */
public final class PersistenceUnitTenancy {

    private static final Set<SessionFactoryImplementor> UNITS = new CopyOnWriteArraySet<>();

    private PersistenceUnitTenancy() {
    }

    static void register(SessionFactoryImplementor sessionFactory) {
        UNITS.add(sessionFactory);
    }

    static void unregister(SessionFactoryImplementor sessionFactory) {
        UNITS.remove(sessionFactory);
    }

    /** Whether a persistence unit with projected entities is multi-tenant (it has a tenant resolver). */
    public static boolean multiTenant() {
        return UNITS.stream().anyMatch(unit -> unit.getCurrentTenantIdentifierResolver() != null);
    }

    /** The first tenant a multi-tenant unit's {@code CurrentTenantIdentifierResolver} gives now, else {@code null}. */
    public static String currentTenant() {
        for (SessionFactoryImplementor unit : UNITS) {
            CurrentTenantIdentifierResolver<Object> resolver = unit.getCurrentTenantIdentifierResolver();
            if (resolver != null) {
                Object tenant = resolver.resolveCurrentTenantIdentifier();
                if (tenant != null && !tenant.toString().isEmpty()) {
                    return tenant.toString();
                }
            }
        }
        return null;
    }
}
