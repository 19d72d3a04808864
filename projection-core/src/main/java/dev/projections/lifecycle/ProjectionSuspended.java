package dev.projections.lifecycle;

import java.time.Instant;

/**
 * A projection was suspended on every instance (docs/contract.md §6): by the engine when its refreshes failed across
 * many keys ({@code by} is {@code "system"}), or by an operator (their name).
 */
public record ProjectionSuspended(String projection, String reason, String by, Instant at) implements LifecycleEvent {
}
