package dev.projections.lifecycle;

import java.time.Instant;

/**
 * A mark was parked (docs/contract.md §6): its refresh failed for good and it waits for an operator's resume or skip.
 *
 * @param tenant   {@code ""} for none
 * @param attempts the failed refreshes, this one included
 * @param error    the last error, as the console shows it
 */
public record MarkParked(String projection, String tenant, String id, int attempts, String error, Instant at)
        implements LifecycleEvent {
}
