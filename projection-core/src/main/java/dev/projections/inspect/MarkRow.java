package dev.projections.inspect;

import java.time.Instant;

/**
 * One mark as a list shows it. {@code availableAt} is when it is (or was) due: for a failing mark, its next
 * retry. {@code claimedUntil} is the lease, if any, and {@code claimedBy} the instance that took it (left as it was
 * when the lease ended: meaningful only while {@code claimedUntil} is ahead).
 */
public record MarkRow(String projection, String tenant, String id, Instant availableAt, Instant firstMarkedAt,
                      Instant claimedUntil, int attempts, Instant lastFailedAt, String lastError, int priority,
                      long markCount, String claimedBy) {

    /** Parked: failed for good, never claimed until an operator acts (its due time is past any clock). */
    public boolean parked() {
        return dev.projections.store.PendingQueue.PARKED_UNTIL.equals(availableAt);
    }

    /** Where the next page starts after this row (or the previous page ends before it). */
    public PageCursor cursor() {
        return new PageCursor(availableAt, tenant, id);
    }
}
