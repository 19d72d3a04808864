package dev.projections.store;

import dev.projections.RebuildScope;

/**
 * One partition of a rebuild run, leased for one step: its cursor, the scope its ids come from (the run's, bounded
 * by the partition's last id), the token that proves the lease, and whether the run verifies ({@code VERIFY}: a step
 * marks only the ids the projection reports drifted) or rebuilds ({@code REBUILD}: it marks them all), and whether
 * the partition pages through the read model's own ids ({@code walksReadModel}, a verification's extra partition,
 * docs/design.md D57) rather than the write model's.
 */
public record RebuildRun(String runId, int partition, String projection, String tenant, String cursor,
                         RebuildScope scope, String token, String kind, boolean walksReadModel) {

    /** A run that marks every id of its scope. */
    public static final String REBUILD = "REBUILD";
    /** A run that checks every id of its scope and marks those that drifted (docs/design.md D57). */
    public static final String VERIFY = "VERIFY";

    public boolean verifies() {
        return VERIFY.equals(kind);
    }
}
