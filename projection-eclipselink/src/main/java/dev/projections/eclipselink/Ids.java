package dev.projections.eclipselink;

import jakarta.persistence.EmbeddedId;
import jakarta.persistence.Id;
import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.Map;
import org.eclipse.persistence.descriptors.ClassDescriptor;
import org.eclipse.persistence.internal.sessions.AbstractSession;
import org.eclipse.persistence.mappings.DatabaseMapping;

/**
 * An entity's id as a mark's key: the value of its one {@code @Id} or {@code @EmbeddedId} attribute, as text — what
 * the Hibernate integration takes, so a projection sees the same keys on either provider. An entity with several
 * {@code @Id} attributes (an {@code @IdClass}) is keyed by EclipseLink's primary key value.
 */
final class Ids {

    private final ClassDescriptor descriptor;
    private final DatabaseMapping idMapping;

    private Ids(ClassDescriptor descriptor, DatabaseMapping idMapping) {
        this.descriptor = descriptor;
        this.idMapping = idMapping;
    }

    static Ids of(ClassDescriptor entity, Map<Class<?>, ClassDescriptor> all) {
        String attribute = idAttribute(entity.getJavaClass());
        DatabaseMapping mapping = null;
        for (Class<?> c = entity.getJavaClass(); attribute != null && mapping == null && c != null && c != Object.class;
                c = c.getSuperclass()) {
            ClassDescriptor descriptor = c == entity.getJavaClass() ? entity : all.get(c);
            mapping = descriptor == null ? null : descriptor.getMappingForAttributeName(attribute);
        }
        return new Ids(entity, mapping);
    }

    /** The name of the class's one {@code @Id} or {@code @EmbeddedId} attribute (field or getter), or {@code null}. */
    static String idAttribute(Class<?> type) {
        String found = null;
        for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
            for (Field field : c.getDeclaredFields()) {
                if (isId(field)) {
                    if (found != null) {
                        return null;
                    }
                    found = field.getName();
                }
            }
            for (Method method : c.getDeclaredMethods()) {
                if (isId(method) && method.getName().startsWith("get") && method.getName().length() > 3) {
                    if (found != null) {
                        return null;
                    }
                    found = Character.toLowerCase(method.getName().charAt(3)) + method.getName().substring(4);
                }
            }
        }
        return found;
    }

    private static boolean isId(AnnotatedElement element) {
        return element.isAnnotationPresent(Id.class) || element.isAnnotationPresent(EmbeddedId.class);
    }

    /** The id of {@code entity} (an instance of this descriptor's class) as text; {@code null} for no entity. */
    String idOf(Object entity, AbstractSession session) {
        if (entity == null) {
            return null;
        }
        Object id = idMapping != null
                ? idMapping.getAttributeValueFromObject(entity)
                : descriptor.getObjectBuilder().extractPrimaryKeyFromObject(entity, session);
        return id == null ? null : id.toString();
    }
}
