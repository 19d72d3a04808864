package dev.projections.eclipselink;

import dev.projections.Projected;
import dev.projections.marking.Declarations;
import java.util.Map;
import org.eclipse.persistence.descriptors.ClassDescriptor;
import org.eclipse.persistence.internal.identitymaps.CacheId;
import org.eclipse.persistence.internal.sessions.AbstractSession;
import org.eclipse.persistence.mappings.DatabaseMapping;
import org.eclipse.persistence.mappings.ManyToOneMapping;
import org.eclipse.persistence.mappings.ObjectReferenceMapping;
import org.eclipse.persistence.mappings.foundation.AbstractDirectMapping;
import org.eclipse.persistence.sessions.changesets.ChangeRecord;
import org.eclipse.persistence.sessions.changesets.ObjectChangeSet;

/**
 * Where one {@link Projected} declaration finds its key in an EclipseLink entity: the entity's id, a basic attribute,
 * or the id of a {@code @ManyToOne} association — the same three kinds, and the same refusals, as the Hibernate
 * integration's key paths. The key a change moved away from is the old value of the attribute's change record.
 */
final class KeyPath {

    private enum Kind { ID, BASIC, ASSOCIATION }

    private final String projection;
    private final Kind kind;
    private final String attribute;
    private final DatabaseMapping mapping;
    private final Ids ids;

    private KeyPath(String projection, Kind kind, String attribute, DatabaseMapping mapping, Ids ids) {
        this.projection = projection;
        this.kind = kind;
        this.attribute = attribute;
        this.mapping = mapping;
        this.ids = ids;
    }

    /** Checks the declaration against the mapping; a bad path fails the persistence unit, naming entity and path. */
    static KeyPath resolve(ClassDescriptor entity, Projected declaration, Map<Class<?>, ClassDescriptor> all) {
        String path = declaration.id().trim();
        String projection = declaration.value();
        if (path.isEmpty() || path.equals(Ids.idAttribute(entity.getJavaClass()))) {
            return new KeyPath(projection, Kind.ID, path, null, Ids.of(entity, all));
        }
        DatabaseMapping mapping = findMapping(entity, path, all);
        if (mapping == null) {
            throw invalid(entity, declaration, "it names no attribute of the entity");
        }
        if (mapping instanceof ManyToOneMapping toOne) {
            ClassDescriptor target = all.get(toOne.getReferenceClass());
            if (target == null) {
                throw invalid(entity, declaration, "its association's target is not an entity of this unit");
            }
            return new KeyPath(projection, Kind.ASSOCIATION, path, mapping, Ids.of(target, all));
        }
        if (mapping instanceof ObjectReferenceMapping) {
            throw invalid(entity, declaration, "only @ManyToOne associations may be key paths");
        }
        if (!(mapping instanceof AbstractDirectMapping)) {
            throw invalid(entity, declaration, "it is neither a basic attribute nor a @ManyToOne association");
        }
        return new KeyPath(projection, Kind.BASIC, path, mapping, null);
    }

    /** Before the session logs in, a descriptor holds only its own mappings: a superclass's are in its descriptor. */
    private static DatabaseMapping findMapping(ClassDescriptor entity, String path, Map<Class<?>, ClassDescriptor> all) {
        for (Class<?> c = entity.getJavaClass(); c != null && c != Object.class; c = c.getSuperclass()) {
            ClassDescriptor descriptor = c == entity.getJavaClass() ? entity : all.get(c);
            DatabaseMapping mapping = descriptor == null ? null : descriptor.getMappingForAttributeName(path);
            if (mapping != null) {
                return mapping;
            }
        }
        return null;
    }

    private static IllegalStateException invalid(ClassDescriptor entity, Projected declaration, String why) {
        return Declarations.invalidPath(entity.getJavaClassName(), declaration, why);
    }

    String projection() {
        return projection;
    }

    /** The key in the entity's present state, or {@code null} when it has none (a null attribute or association). */
    String keyIn(Object entity, AbstractSession session) {
        return switch (kind) {
            case ID -> ids.idOf(entity, session);
            case BASIC -> text(mapping.getAttributeValueFromObject(entity));
            case ASSOCIATION -> associatedKey(entity, session);
        };
    }

    /**
     * The associated entity's id without loading it: a lazy association not loaded yet gives its foreign key from the row
     * its value holder keeps (loading in the middle of EclipseLink's commit would run queries there). A composite key,
     * or one the value holder cannot give, is taken from the loaded entity.
     */
    private String associatedKey(Object entity, AbstractSession session) {
        Object key = ((ObjectReferenceMapping) mapping).extractPrimaryKeysForReferenceObject(entity, session);
        if (key != null && !(key instanceof CacheId)) {
            return key.toString();
        }
        return ids.idOf(mapping.getRealAttributeValueFromObject(entity, session), session);
    }

    /**
     * The key before the update {@code changes} describes, when this path's attribute changed; {@code null} when it did
     * not (the present key is the old one) or was null before. An id never changes.
     */
    String oldKeyIn(ObjectChangeSet changes, AbstractSession session) {
        if (kind == Kind.ID || changes == null) {
            return null;
        }
        ChangeRecord record = changes.getChangesForAttributeNamed(attribute);
        if (record == null) {
            return null;
        }
        Object old = record.getOldValue();
        return kind == Kind.BASIC ? text(old) : ids.idOf(old, session);
    }

    private static String text(Object value) {
        return value == null ? null : value.toString();
    }
}
