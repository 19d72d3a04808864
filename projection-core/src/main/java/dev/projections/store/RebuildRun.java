package dev.projections.store;

/** A rebuild run leased for one step: its cursor, and the token that proves the lease. */
public record RebuildRun(String runId, String projection, String tenant, String cursor, String token) {
}
