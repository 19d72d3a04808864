package dev.projections.ops;

/**
 * The operations of one engine instance, built once by its builder for every face (the console, the management API,
 * the application's facade, tests and benchmarks): marks and pauses (each action with its audit row), rebuild runs,
 * the overview, the operator's rebuild actions with their audit rows, and what an application's tests ask (waiting
 * for no mark left, refreshing now).
 */
public record Operations(MarkOperations marks, PauseOperations pauses, RebuildOperations rebuilds, Overview overview,
                         AuditedRebuilds audited, CatchUp catchUp) {
}
