package dev.projections.eclipselink;

import dev.projections.Projected;
import dev.projections.marking.Declarations;
import dev.projections.marking.ProjectionNames;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.eclipse.persistence.descriptors.ClassDescriptor;
import org.eclipse.persistence.sessions.Session;

/** The key paths of every {@link Projected} entity of one EclipseLink session, by entity class. */
final class ProjectedDescriptors {

    private final Map<Class<?>, List<KeyPath>> pathsByClass;
    private final List<ClassDescriptor> descriptors;

    private ProjectedDescriptors(Map<Class<?>, List<KeyPath>> pathsByClass, List<ClassDescriptor> descriptors) {
        this.pathsByClass = pathsByClass;
        this.descriptors = descriptors;
    }

    static ProjectedDescriptors of(Session session) {
        Map<Class<?>, ClassDescriptor> all = session.getDescriptors();
        Map<Class<?>, List<KeyPath>> paths = new HashMap<>();
        List<ClassDescriptor> projected = new ArrayList<>();
        for (ClassDescriptor descriptor : all.values()) {
            if (descriptor.isAggregateDescriptor() || descriptor.getJavaClass() == null) {
                continue;
            }
            List<KeyPath> entityPaths = new ArrayList<>();
            for (Projected declaration : Declarations.of(descriptor.getJavaClass())) {
                ProjectionNames.check(declaration.value(), descriptor.getJavaClassName());
                entityPaths.add(KeyPath.resolve(descriptor, declaration, all));
            }
            if (!entityPaths.isEmpty()) {
                paths.put(descriptor.getJavaClass(), List.copyOf(entityPaths));
                projected.add(descriptor);
            }
        }
        return new ProjectedDescriptors(Map.copyOf(paths), List.copyOf(projected));
    }

    boolean isEmpty() {
        return pathsByClass.isEmpty();
    }

    Collection<ClassDescriptor> descriptors() {
        return descriptors;
    }

    List<KeyPath> pathsOf(Object entity) {
        return entity == null ? List.of() : pathsByClass.getOrDefault(entity.getClass(), List.of());
    }
}
