package dev.projections.eclipselink;

import dev.projections.marking.ProjectedUnits;
import javax.sql.DataSource;
import org.eclipse.persistence.descriptors.ClassDescriptor;
import org.eclipse.persistence.sessions.Connector;
import org.eclipse.persistence.sessions.DatasourceLogin;
import org.eclipse.persistence.sessions.JNDIConnector;
import org.eclipse.persistence.sessions.Session;

/**
 * A logged-in EclipseLink persistence unit with projected entities, as the engine's datasource check and tenancy see it:
 * the datasource is the one its login connects through (the object the container handed it, or its JNDI name).
 */
record EclipseLinkUnit(Session session) implements ProjectedUnits.Started {

    @Override
    public ProjectedUnits.Unit unit() {
        DataSource dataSource = null;
        String dataSourceName = null;
        Connector connector = session.getDatasourceLogin() instanceof DatasourceLogin login ? login.getConnector() : null;
        if (connector instanceof JNDIConnector jndi) {
            dataSource = jndi.getDataSource();
            dataSourceName = jndi.getName();
        }
        return new ProjectedUnits.Unit(session.getName(), dataSource, dataSourceName);
    }

    /** Multi-tenant when an entity of the unit is (EclipseLink's {@code @Multitenant}). */
    @Override
    public boolean multiTenant() {
        for (ClassDescriptor descriptor : session.getDescriptors().values()) {
            if (descriptor.hasMultitenantPolicy()) {
                return true;
            }
        }
        return false;
    }

    /** EclipseLink keeps the tenant per persistence context ({@code eclipselink.tenant-id}), not per unit. */
    @Override
    public String currentTenant() {
        return null;
    }
}
