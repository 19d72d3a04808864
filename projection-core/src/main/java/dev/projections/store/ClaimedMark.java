package dev.projections.store;

import dev.projections.MarkKey;
import java.time.Instant;

/** A mark this worker claimed: its generation at claim time and the token that proves the claim. */
public record ClaimedMark(MarkKey key, String generation, String token, Instant claimedAt, Instant leaseUntil,
                          int attempts, int priority) {
}
