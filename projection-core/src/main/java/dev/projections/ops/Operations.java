package dev.projections.ops;

/**
 * The operations of one engine instance, built once by its builder for every face (the console, the management API,
 * the application's facade, tests and benchmarks): marks, pauses, rebuild runs, the overview, and the operator's
 * actions with their audit rows, and what an application's tests ask (waiting for no mark left, refreshing now).
 */
public record Operations(MarkOperations marks, PauseOperations pauses, RebuildOperations rebuilds, Overview overview,
                         AuditedActions audited, CatchUp catchUp) {
}
