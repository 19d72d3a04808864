package dev.projections;

import java.util.List;
import java.util.Map;
import java.util.Set;

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

    /**
     * For a scoped or partitioned rebuild: like {@link #ids(String, int)}, but only ids within {@code scope} — at or
     * after {@code scope.from()}, at or before {@code scope.to()} (a partition's upper bound arrives here too),
     * changed at or after {@code scope.changedSince()}, selected by {@code scope.filter()} — each applied when set.
     * The default serves the unbounded scope from {@code ids(after, limit)} and refuses every other: implement it,
     * and list the kinds in {@link #rebuildScopes()}, to offer scoped or partitioned runs.
     */
    default List<String> ids(String after, int limit, RebuildScope scope) {
        if (scope.isEverything()) {
            return ids(after, limit);
        }
        throw new UnsupportedOperationException("projection " + name() + " does not implement ids(after, limit, scope), "
                + "so it cannot rebuild " + scope);
    }

    /**
     * The kinds of {@link RebuildScope} that {@link #ids(String, int, RebuildScope)} applies; empty (the default):
     * only whole rebuilds. {@link RebuildScope.Kind#ID_RANGE} is also what partitions need.
     */
    default Set<RebuildScope.Kind> rebuildScopes() {
        return Set.of();
    }

    /**
     * The names of the filters {@code ids(after, limit, scope)} understands ({@code region} for
     * {@code region=EU}), offered by the console; the default: none.
     */
    default Set<String> rebuildFilters() {
        return Set.of();
    }

    /**
     * For a run split into up to {@code n} partitions stepped in parallel: at most {@code n - 1} ids within
     * {@code scope}, strictly ascending in the ids' order, that cut its ids into ranges of similar size. Partition
     * {@code k} marks the ids after bound {@code k - 1} up to bound {@code k} inclusive (the first from the scope's
     * start, the last to its end), so together they cover the scope once, ids added during the run included. The
     * default, no bounds, makes one partition. Called inside the run's tenant scope; needs
     * {@link RebuildScope.Kind#ID_RANGE} in {@link #rebuildScopes()}.
     */
    default List<String> partitionBounds(RebuildScope scope, int n) {
        return List.of();
    }

    /**
     * This projection's own defaults for the settings a projection may have (docs/guide/configuration.md "Configuration": retry delay and
     * its cap, max attempts, non-retryable and back-pressure exceptions, suspension thresholds, rebuild page size),
     * keyed and written as in configuration without the prefix: {@code Map.of("max-attempts", "3", "retry-delay",
     * "1s")}. Configuration wins: {@code projection.<name>.<key>} over these, these over the global
     * {@code projection.<key>}. Checked at deployment like every setting. The default: none.
     */
    default Map<String, String> defaultSettings() {
        return Map.of();
    }

    /** Deletes the whole read model, for "clear and rebuild". */
    default void clear() {
        throw new UnsupportedOperationException("projection " + name() + " does not implement clear()");
    }
}
