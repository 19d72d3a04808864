package dev.projections.lifecycle;

/**
 * A change of state an application may act on (docs/contract.md §6, §7): told after the transaction that made it true
 * committed, outside the engine's transactions and locks. In the server each is a CDI event: observe the record's
 * type ({@code void parked(@Observes MarkParked parked)}). An observer that throws is logged and counted
 * ({@code projection.listener.failures}) and changes nothing in the engine.
 */
public sealed interface LifecycleEvent permits MarkParked, ProjectionSuspended, ProjectionResumed, RebuildEnded, DriftFound {

    /** The projection it concerns. */
    String projection();
}
