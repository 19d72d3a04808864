package dev.projections.store;

import dev.projections.MarkKey;
import java.time.Instant;

/**
 * A mark this worker claimed: its generation at claim time and the token that proves the claim. {@code address} is
 * the claimed row's physical address where the claim returned it ({@code "tableoid ctid"} on PostgreSQL), else
 * {@code null}: a hint for the ack, valid only while nobody changed the row since the claim.
 */
public record ClaimedMark(MarkKey key, String generation, String token, Instant claimedAt, Instant leaseUntil,
                          int attempts, int priority, String address) {

    public ClaimedMark(MarkKey key, String generation, String token, Instant claimedAt, Instant leaseUntil, int attempts,
                       int priority) {
        this(key, generation, token, claimedAt, leaseUntil, attempts, priority, null);
    }
}
