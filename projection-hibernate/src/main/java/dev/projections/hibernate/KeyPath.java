package dev.projections.hibernate;

import dev.projections.Projected;
import dev.projections.marking.Declarations;
import org.hibernate.engine.spi.SharedSessionContractImplementor;
import org.hibernate.mapping.Component;
import org.hibernate.mapping.ManyToOne;
import org.hibernate.mapping.PersistentClass;
import org.hibernate.mapping.Property;
import org.hibernate.mapping.SimpleValue;
import org.hibernate.mapping.ToOne;
import org.hibernate.persister.entity.EntityPersister;
import org.hibernate.proxy.HibernateProxy;
import org.hibernate.proxy.LazyInitializer;

/**
 * Where one {@link Projected} declaration finds its key in an entity: the entity's id, a basic attribute, or
 * the id of a {@code @ManyToOne} association. Values are read from the event's state arrays by property
 * index, and an association's id is read through its proxy without initialising it: loading during a
 * flush would issue queries in the middle of Hibernate's action queue.
 */
final class KeyPath {

    private enum Kind { ID, BASIC, ASSOCIATION }

    private final String projection;
    private final String path;
    private final Kind kind;
    private final String associatedEntity;

    private KeyPath(String projection, String path, Kind kind, String associatedEntity) {
        this.projection = projection;
        this.path = path;
        this.kind = kind;
        this.associatedEntity = associatedEntity;
    }

    /** Checks the declaration against the mapping; a bad path fails the persistence unit, naming entity and path. */
    static KeyPath resolve(PersistentClass entity, Projected declaration) {
        String path = declaration.id().trim();
        String projection = declaration.value();
        Property idProperty = entity.getIdentifierProperty();
        if (path.isEmpty() || (idProperty != null && idProperty.getName().equals(path))) {
            return new KeyPath(projection, path, Kind.ID, null);
        }
        Property property = findProperty(entity, path);
        if (property == null) {
            throw invalid(entity, declaration, "it names no attribute of the entity");
        }
        if (property.getValue() instanceof ManyToOne toOne) {
            return new KeyPath(projection, path, Kind.ASSOCIATION, toOne.getReferencedEntityName());
        }
        if (property.getValue() instanceof ToOne) {
            throw invalid(entity, declaration, "only @ManyToOne associations may be key paths");
        }
        if (property.getValue() instanceof Component || !(property.getValue() instanceof SimpleValue)) {
            throw invalid(entity, declaration, "it is neither a basic attribute nor a @ManyToOne association");
        }
        return new KeyPath(projection, path, Kind.BASIC, null);
    }

    private static Property findProperty(PersistentClass entity, String path) {
        for (PersistentClass c = entity; c != null; c = c.getSuperclass()) {
            for (Property property : c.getProperties()) {
                if (property.getName().equals(path)) {
                    return property;
                }
            }
        }
        return null;
    }

    private static IllegalStateException invalid(PersistentClass entity, Projected declaration, String why) {
        return Declarations.invalidPath(entity.getEntityName(), declaration, why);
    }

    String projection() {
        return projection;
    }

    boolean isId() {
        return kind == Kind.ID;
    }

    /**
     * The key in one state of the entity, or {@code null} when it has none (a null attribute or
     * association). {@code state} may be {@code null} for the id path only; it may also be a database snapshot of
     * the row, whose associations are foreign key values.
     */
    String keyIn(Object id, Object[] state, EntityPersister persister, SharedSessionContractImplementor session) {
        if (kind == Kind.ID) {
            return id == null ? null : id.toString();
        }
        if (state == null) {
            return null;
        }
        Object value = state[persister.getEntityMetamodel().getPropertyIndex(path)];
        if (value == null) {
            return null;
        }
        if (kind == Kind.BASIC) {
            return value.toString();
        }
        Object associatedId = associatedId(value, session);
        return associatedId == null ? null : associatedId.toString();
    }

    /**
     * The associated entity's id: through a proxy without initialising it, from an entity instance, or the value
     * itself where the state holds the foreign key (a database snapshot of the row).
     */
    private Object associatedId(Object value, SharedSessionContractImplementor session) {
        LazyInitializer proxy = HibernateProxy.extractLazyInitializer(value);
        if (proxy != null) {
            return proxy.getInternalIdentifier();
        }
        EntityPersister associated = session.getFactory().getMappingMetamodel().getEntityDescriptor(associatedEntity);
        return associated.getMappedClass().isInstance(value) ? associated.getIdentifier(value, session) : value;
    }
}
