package dev.projections;

import java.util.List;

/**
 * A read model kept in step with the write model. Implementations are CDI beans of the application
 * (in an ejb-jar or the EAR's lib). A refresh is an overwrite: it reads the aggregate's current state and
 * rewrites its read-model row, or deletes the row when the source is gone, so running it twice is harmless.
 */
public interface Projection {

    /** Stable name, {@code [a-z0-9._-]}, 1..100 characters; marks are stored under it. */
    String name();

    /** Reads the current state of {@code id} and writes (or deletes) its read-model row. */
    void refresh(String id) throws Exception;

    /** One tenant's batch; override with a set-based implementation where it pays. */
    default void refreshAll(List<String> ids) throws Exception {
        for (String id : ids) {
            refresh(id);
        }
    }

    /**
     * For a rebuild: at most {@code limit} ids strictly after {@code after} ({@code null}: from the start), in the
     * ascending order {@code after} compares by; the last id of a page is the next page's {@code after}. A short
     * page ends the run. Called inside the run's tenant scope.
     */
    default List<String> ids(String after, int limit) {
        throw new UnsupportedOperationException(
                "projection " + name() + " does not implement ids(after, limit), so it cannot be rebuilt");
    }

    /** Deletes the whole read model, for "clear and rebuild". */
    default void clear() {
        throw new UnsupportedOperationException("projection " + name() + " does not implement clear()");
    }
}
