package dev.projections.inspect;

import java.time.Duration;
import java.time.Instant;

/**
 * What an instance last reported of itself, as the console lists it: since when it runs, when it last reported, its
 * workers and how many drainers are busy, the marks its batches hold claimed, the refreshes it completed in the last
 * minute, its clock against the database's (engine minus database), and whether it processes marks or is a web node
 * ({@code projection.processing}). The console's copy of the store's
 * {@code NodeReport}, so that a page reads no store type and the table's record can change without the pages.
 */
public record InstanceReport(String instanceId, Instant startedAt, Instant lastSeen, int workers, int drainersBusy,
                             int claimsHeld, long refreshesPerMinute, Duration clockSkew, boolean processing) {
}
