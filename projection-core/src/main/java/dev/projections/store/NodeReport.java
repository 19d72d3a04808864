package dev.projections.store;

import java.time.Duration;
import java.time.Instant;

/**
 * What an instance is doing, as its sweep reports it ({@code projection_node}): since when it runs, when it last
 * reported, its workers and how many drainers are busy, the marks its drainers' batches hold claimed, the refreshes it
 * completed in the last minute, its clock against the database's (engine minus database), and whether it processes
 * marks ({@code projection.processing}) or is a web node.
 */
public record NodeReport(String instanceId, Instant startedAt, Instant lastSeen, int workers, int drainersBusy,
                         int claimsHeld, long refreshesPerMinute, Duration clockSkew, boolean processing) {
}
