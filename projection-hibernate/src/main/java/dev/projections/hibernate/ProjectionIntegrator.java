package dev.projections.hibernate;

import dev.projections.marking.ProjectedUnits;
import org.hibernate.boot.Metadata;
import org.hibernate.boot.spi.BootstrapContext;
import org.hibernate.engine.spi.SessionFactoryImplementor;
import org.hibernate.event.service.spi.EventListenerRegistry;
import org.hibernate.event.spi.EventType;
import org.hibernate.integrator.spi.Integrator;
import org.hibernate.service.spi.SessionFactoryServiceRegistry;

/**
 * Hooks automatic marking into every persistence unit on Hibernate ORM that has {@code @Projected} entities. Found by
 * Hibernate through {@code META-INF/services}, which is why projection-hibernate sits in the EAR's {@code lib/}.
 * Key paths are checked here, so a bad one fails the deployment.
 */
public final class ProjectionIntegrator implements Integrator {

    @Override
    public void integrate(Metadata metadata, BootstrapContext bootstrapContext, SessionFactoryImplementor sessionFactory) {
        ProjectedEntityIndex index = ProjectedEntityIndex.of(metadata);
        if (index.isEmpty()) {
            return;
        }
        ProjectedUnits.register(new HibernateUnit(sessionFactory));
        MarkingListener listener = new MarkingListener(index);
        SessionJoinListener joined = new SessionJoinListener(index);
        EventListenerRegistry registry = sessionFactory.getServiceRegistry().requireService(EventListenerRegistry.class);
        registry.appendListeners(EventType.POST_INSERT, listener);
        registry.appendListeners(EventType.POST_UPDATE, listener);
        registry.appendListeners(EventType.PRE_UPDATE, listener);
        registry.appendListeners(EventType.POST_DELETE, listener);
        registry.appendListeners(EventType.POST_COLLECTION_RECREATE, listener);
        registry.appendListeners(EventType.POST_COLLECTION_UPDATE, listener);
        registry.appendListeners(EventType.POST_COLLECTION_REMOVE, listener);
        registry.appendListeners(EventType.POST_LOAD, joined);
        registry.appendListeners(EventType.PERSIST, joined);
        registry.appendListeners(EventType.MERGE, joined);
        registry.appendListeners(EventType.DELETE, joined);
    }

    @Override
    public void disintegrate(SessionFactoryImplementor sessionFactory, SessionFactoryServiceRegistry serviceRegistry) {
        ProjectedUnits.unregister(new HibernateUnit(sessionFactory));
    }
}
