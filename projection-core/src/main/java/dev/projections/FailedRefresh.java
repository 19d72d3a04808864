package dev.projections;

import java.time.Instant;

/** A mark whose refreshes failed: backing off until {@code nextRetry}. */
public record FailedRefresh(String tenant, String id, int attempts, String lastError, Instant lastFailedAt,
                            Instant nextRetry) {
}
