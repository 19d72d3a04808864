package dev.projections.hibernate;

import dev.projections.marking.Declarations;
import dev.projections.marking.ProjectionNames;
import dev.projections.Projected;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.hibernate.boot.Metadata;
import org.hibernate.mapping.PersistentClass;

/** The key paths of every {@link Projected} entity of one persistence unit, by entity name. */
final class ProjectedEntityIndex {

    private final Map<String, List<KeyPath>> pathsByEntity;

    private ProjectedEntityIndex(Map<String, List<KeyPath>> pathsByEntity) {
        this.pathsByEntity = pathsByEntity;
    }

    static ProjectedEntityIndex of(Metadata metadata) {
        Map<String, List<KeyPath>> paths = new HashMap<>();
        for (PersistentClass entity : metadata.getEntityBindings()) {
            List<KeyPath> entityPaths = new ArrayList<>();
            for (Projected declaration : Declarations.of(entity.getMappedClass())) {
                ProjectionNames.check(declaration.value(), entity.getEntityName());
                entityPaths.add(KeyPath.resolve(entity, declaration));
            }
            if (!entityPaths.isEmpty()) {
                paths.put(entity.getEntityName(), List.copyOf(entityPaths));
            }
        }
        return new ProjectedEntityIndex(Map.copyOf(paths));
    }

    boolean isEmpty() {
        return pathsByEntity.isEmpty();
    }

    List<KeyPath> pathsOf(String entityName) {
        return pathsByEntity.getOrDefault(entityName, List.of());
    }
}
