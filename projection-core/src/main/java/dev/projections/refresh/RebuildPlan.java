package dev.projections.refresh;

import dev.projections.Projection;
import dev.projections.MarkKey;
import dev.projections.RebuildScope;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * What a rebuild run will be, checked before it starts (docs/contract.md §7): a scope the projection understands
 * and, for a partitioned run, the bounds its {@link Projection#partitionBounds} gives. Anything wrong is the
 * caller's or the projection's, and is said before a row is written.
 */
public final class RebuildPlan {

    /** The most partitions a run may have: each is a cursor stepped by a drainer of some instance. */
    public static final int MAX_PARTITIONS = 64;

    private RebuildPlan() {
    }

    /** Refuses a scope or a partition count {@code projection} does not support, naming what it does support. */
    public static void check(Projection projection, RebuildScope scope, int partitions) {
        if (scope == null) {
            throw new IllegalArgumentException("scope must not be null (use RebuildScope.everything()), projection "
                    + projection.name());
        }
        if (partitions < 1 || partitions > MAX_PARTITIONS) {
            throw new IllegalArgumentException("partitions must be 1.." + MAX_PARTITIONS + ", was " + partitions);
        }
        Set<RebuildScope.Kind> supported = projection.rebuildScopes();
        List<String> refused = new ArrayList<>();
        for (RebuildScope.Kind kind : scope.kinds()) {
            if (kind == RebuildScope.Kind.FILTER) {
                if (!supported.contains(kind) || !projection.rebuildFilters().contains(scope.filterName())) {
                    refused.add("filter \"" + scope.filterName() + "\" (its filters: " + projection.rebuildFilters() + ")");
                }
            } else if (!supported.contains(kind)) {
                refused.add(kind.name());
            }
        }
        if (partitions > 1 && !supported.contains(RebuildScope.Kind.ID_RANGE)) {
            refused.add("partitions (they need ID_RANGE)");
        }
        if (!refused.isEmpty()) {
            throw new UnsupportedOperationException("projection " + projection.name() + " cannot rebuild " + scope
                    + (partitions > 1 ? " in " + partitions + " partitions" : "") + ": it does not support "
                    + String.join(", ", refused) + "; it supports " + (supported.isEmpty() ? "whole rebuilds only"
                    : supported + (projection.rebuildFilters().isEmpty() ? "" : ", filters " + projection.rebuildFilters())));
        }
    }

    /**
     * Reads the first id of a scoped run before it starts (call it inside the run's tenant scope), so that a value the
     * projection cannot use (a range bound that is not one of its ids' form, a filter value it refuses) is said to the
     * caller, not found by the run's first step.
     */
    public static void probe(Projection projection, RebuildScope scope) {
        if (scope.isEverything()) {
            return;
        }
        try {
            projection.ids(null, 1, scope);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("projection " + projection.name() + " cannot list the ids of " + scope
                    + ": " + (e.getMessage() == null ? e.toString() : e.getMessage()), e);
        }
    }

    /**
     * The bounds cutting {@code scope} into at most {@code partitions} partitions, from the projection (call it inside
     * the run's tenant scope); none for one partition.
     */
    public static List<String> bounds(Projection projection, RebuildScope scope, int partitions) {
        if (partitions == 1) {
            return List.of();
        }
        List<String> bounds;
        try {
            bounds = projection.partitionBounds(scope, partitions);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("partitionBounds() of " + projection.name() + " failed for " + scope + ": "
                    + (e.getMessage() == null ? e.toString() : e.getMessage()), e);
        }
        if (bounds == null) {
            throw new IllegalStateException("partitionBounds() of " + projection.name() + " returned null");
        }
        if (bounds.size() > partitions - 1) {
            throw new IllegalStateException("partitionBounds() of " + projection.name() + " returned " + bounds.size()
                    + " bounds for " + partitions + " partitions; at most " + (partitions - 1) + " cut them");
        }
        Set<String> seen = new HashSet<>();
        for (String bound : bounds) {
            if (bound == null || bound.isBlank() || bound.length() > MarkKey.MAX_ID_LENGTH
                    || bound.chars().anyMatch(Character::isISOControl) || !seen.add(bound)) {
                throw new IllegalStateException("partitionBounds() of " + projection.name() + " returned an invalid "
                        + "or repeated bound \"" + bound + "\" in " + bounds);
            }
        }
        return List.copyOf(bounds);
    }
}
