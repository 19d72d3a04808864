package dev.projections.store;

import dev.projections.MarkKey;
import java.time.Instant;

/**
 * A mark this worker claimed: its generation at claim time and the token that proves the claim. {@code address} is
 * the claimed row's physical address where the claim returned it ({@code "tableoid ctid"} on PostgreSQL), else
 * {@code null}: a hint for the ack, valid only while nobody changed the row since the claim. {@code firstMarkedAt} is
 * the row's {@code first_marked_at} as claimed (when the change waiting longest was marked: the start of the key's
 * lag), {@code null} where the claim did not read it.
 */
public record ClaimedMark(MarkKey key, String generation, String token, Instant claimedAt, Instant leaseUntil,
                          int attempts, int priority, String address, Instant firstMarkedAt) {

    public ClaimedMark(MarkKey key, String generation, String token, Instant claimedAt, Instant leaseUntil, int attempts,
                       int priority, String address) {
        this(key, generation, token, claimedAt, leaseUntil, attempts, priority, address, null);
    }

    public ClaimedMark(MarkKey key, String generation, String token, Instant claimedAt, Instant leaseUntil, int attempts,
                       int priority) {
        this(key, generation, token, claimedAt, leaseUntil, attempts, priority, null, null);
    }
}
