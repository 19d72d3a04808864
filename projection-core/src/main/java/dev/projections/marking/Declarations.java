package dev.projections.marking;

import dev.projections.Projected;
import java.util.ArrayList;
import java.util.List;

/** The {@link Projected} declarations of an entity class, and the one refusal of a bad key path, for every provider. */
public final class Declarations {

    private Declarations() {
    }

    /** Declarations on the class and its superclasses: a subclass entity marks what its root declares. */
    public static List<Projected> of(Class<?> type) {
        List<Projected> declarations = new ArrayList<>();
        for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
            declarations.addAll(List.of(c.getAnnotationsByType(Projected.class)));
        }
        return declarations;
    }

    /** Fails the persistence unit for a key path the mapping does not allow, naming entity, path and {@code why}. */
    public static IllegalStateException invalidPath(String entity, Projected declaration, String why) {
        return new IllegalStateException("@Projected(value = \"" + declaration.value() + "\", id = \""
                + declaration.id() + "\") on entity " + entity + " has an invalid key path \""
                + declaration.id() + "\": " + why
                + ". Use the entity's id (id = \"\"), a basic attribute or a @ManyToOne association.");
    }
}
