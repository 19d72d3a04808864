package dev.projections.marking;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.hibernate.context.spi.CurrentTenantIdentifierResolver;
import org.hibernate.engine.jdbc.connections.spi.ConnectionProvider;
import org.hibernate.engine.spi.SessionFactoryImplementor;

/**
 * The persistence units that have {@code @Projected} entities, registered by the integrator when a unit starts and
 * removed when it closes; one registry per deployment, since projection-core sits in the EAR's {@code lib/}. The
 * EE layer asks it for the tenant of explicit marks (docs/contract.md §8) and checks every unit against the
 * engine's datasource ({@link #checkEach}).
 */
public final class ProjectedUnits {

    /**
     * A unit as the datasource check sees it: its name, the datasource its sessions write through (the object its
     * {@code ConnectionProvider} unwraps, or {@code null}) and that datasource's JNDI name where the unit's properties
     * give it as text ({@code null} on WildFly, which hands Hibernate the object: the EE layer finds the name).
     */
    public record Unit(String name, DataSource dataSource, String dataSourceName) {

        /** The same unit with its datasource's JNDI name. */
        public Unit withDataSourceName(String jndiName) {
            return new Unit(name, dataSource, jndiName);
        }
    }

    private static final Set<SessionFactoryImplementor> UNITS = new CopyOnWriteArraySet<>();
    private static volatile Consumer<Unit> check;

    private ProjectedUnits() {
    }

    static void register(SessionFactoryImplementor sessionFactory) {
        // added before the check is read, as checkEach installs it before it reads the units: a unit starting while
        // the engine does is checked by one of the two (perhaps both), never by neither
        UNITS.add(sessionFactory);
        Consumer<Unit> installed = check;
        if (installed != null) {
            try {
                installed.accept(unitOf(sessionFactory)); // a unit started after the engine: fails its start
            } catch (RuntimeException e) {
                UNITS.remove(sessionFactory);
                throw e;
            }
        }
    }

    static void unregister(SessionFactoryImplementor sessionFactory) {
        UNITS.remove(sessionFactory);
    }

    /**
     * Runs {@code unitCheck} on every registered unit now and on every unit that starts later; a check that throws
     * fails the deployment (now: the caller's start-up; later: that unit's start).
     */
    public static void checkEach(Consumer<Unit> unitCheck) {
        check = unitCheck;
        for (SessionFactoryImplementor unit : UNITS) {
            unitCheck.accept(unitOf(unit));
        }
    }

    /** The units started so far, as the datasource check sees them. */
    public static List<Unit> units() {
        return UNITS.stream().map(ProjectedUnits::unitOf).toList();
    }

    /** Whether a persistence unit with projected entities is multi-tenant. */
    public static boolean multiTenant() {
        return UNITS.stream().anyMatch(unit -> unit.getCurrentTenantIdentifierResolver() != null
                || unit.getSessionFactoryOptions().isMultiTenancyEnabled());
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

    private static Unit unitOf(SessionFactoryImplementor sessionFactory) {
        Map<String, Object> properties = sessionFactory.getProperties();
        String name = firstString(properties, "hibernate.persistenceUnitName", "hibernate.ejb.persistenceUnitName");
        DataSource dataSource = null;
        ConnectionProvider connections = sessionFactory.getServiceRegistry().getService(ConnectionProvider.class);
        if (connections != null && connections.isUnwrappableAs(DataSource.class)) {
            dataSource = connections.unwrap(DataSource.class);
        }
        String dataSourceName = firstString(properties, "jakarta.persistence.jtaDataSource",
                "javax.persistence.jtaDataSource", "hibernate.connection.datasource");
        return new Unit(name == null ? sessionFactory.getName() : name, dataSource, dataSourceName);
    }

    private static String firstString(Map<String, Object> properties, String... keys) {
        for (String key : keys) {
            if (properties.get(key) instanceof String value && !value.isBlank()) {
                return value;
            }
        }
        return null;
    }
}
