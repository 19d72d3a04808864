package dev.projections.hibernate;

import dev.projections.marking.ProjectedUnits;
import java.util.Map;
import javax.sql.DataSource;
import org.hibernate.context.spi.CurrentTenantIdentifierResolver;
import org.hibernate.engine.jdbc.connections.spi.ConnectionProvider;
import org.hibernate.engine.spi.SessionFactoryImplementor;

/** A started Hibernate persistence unit with projected entities, as the engine's checks and tenancy see it. */
record HibernateUnit(SessionFactoryImplementor sessionFactory) implements ProjectedUnits.Started {

    @Override
    public ProjectedUnits.Unit unit() {
        Map<String, Object> properties = sessionFactory.getProperties();
        String name = firstString(properties, "hibernate.persistenceUnitName", "hibernate.ejb.persistenceUnitName");
        DataSource dataSource = null;
        ConnectionProvider connections = sessionFactory.getServiceRegistry().getService(ConnectionProvider.class);
        if (connections != null && connections.isUnwrappableAs(DataSource.class)) {
            dataSource = connections.unwrap(DataSource.class);
        }
        String dataSourceName = firstString(properties, "jakarta.persistence.jtaDataSource",
                "javax.persistence.jtaDataSource", "hibernate.connection.datasource");
        return new ProjectedUnits.Unit(name == null ? sessionFactory.getName() : name, dataSource, dataSourceName);
    }

    @Override
    public boolean multiTenant() {
        return sessionFactory.getCurrentTenantIdentifierResolver() != null
                || sessionFactory.getSessionFactoryOptions().isMultiTenancyEnabled();
    }

    @Override
    public String currentTenant() {
        CurrentTenantIdentifierResolver<Object> resolver = sessionFactory.getCurrentTenantIdentifierResolver();
        Object tenant = resolver == null ? null : resolver.resolveCurrentTenantIdentifier();
        return tenant == null || tenant.toString().isEmpty() ? null : tenant.toString();
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
