package dev.projections.store;

import dev.projections.RebuildScope;

/**
 * One partition of a rebuild run, leased for one step: its cursor, the scope its ids come from (the run's, bounded
 * by the partition's last id), and the token that proves the lease.
 */
public record RebuildRun(String runId, int partition, String projection, String tenant, String cursor,
                         RebuildScope scope, String token) {
}
