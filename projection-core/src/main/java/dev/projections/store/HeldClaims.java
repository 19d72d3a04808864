package dev.projections.store;

import static dev.projections.store.PendingQueue.sortedByKey;
import static dev.projections.store.Statements.truncate;

import dev.projections.MarkKey;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Claims a drainer holds on {@code projection_pending} rows and ends without an ack: released unstarted,
 * abandoned after a failed batch, renewed for the marks still to go, given back untried (a failed probe,
 * back-pressure), failed with a retry time, parked. Every statement matches the claim's token, so a claim that is no longer this drainer's is left
 * alone; where the attempt may have written a read model, its key is marked again instead (the queue's upsert).
 * Keys are written in key order, one at a time where a re-mark may follow (docs/contract.md §3 lock order).
 */
public final class HeldClaims {

    /* each completed by a RowLocator's condition: the row, then the claim token */

    /* a failed probe or back-pressure: given back, no attempt counted, due again later */
    static final String GIVE_BACK_UNTRIED = """
            UPDATE projection_pending SET claim_token = NULL, claimed_until = NULL, claimed_by = NULL, available_at = ?""";

    static final String RELEASE = """
            UPDATE projection_pending SET claim_token = NULL, claimed_until = NULL, claimed_by = NULL""";

    static final String RENEW = """
            UPDATE projection_pending SET claimed_until = ?""";

    static final String RECORD_FAILURE = """
            UPDATE projection_pending
               SET attempts = attempts + 1, available_at = ?, last_failed_at = ?, last_error = ?,
                   first_failed_at = COALESCE(first_failed_at, ?), claim_token = NULL, claimed_until = NULL, claimed_by = NULL""";

    /* as RECORD_FAILURE, and parked: out of every claim by its available_at, its generation kept to show re-marks */
    static final String PARK = """
            UPDATE projection_pending
               SET attempts = attempts + 1, available_at = ?, last_failed_at = ?, last_error = ?,
                   first_failed_at = COALESCE(first_failed_at, ?), parked_at = ?, parked_generation = generation,
                   claim_token = NULL, claimed_until = NULL, claimed_by = NULL""";

    private final PendingQueue queue;

    private static List<MarkKey> keysOf(List<ClaimedMark> sorted) {
        return sorted.stream().map(ClaimedMark::key).toList();
    }

    HeldClaims(PendingQueue queue) {
        this.queue = queue;
    }

    /**
     * Releases claims that were never started, by token, in key order; a key whose claim is no longer mine is left
     * alone (nothing was written for it), but where the dialect locks rows to find them ({@link RowLocator}) a key
     * whose row was gone meanwhile is marked anew, which costs one extra refresh. Returns how many were released.
     */
    public int release(Connection connection, List<ClaimedMark> marks, Instant now) throws SQLException {
        List<ClaimedMark> sorted = sortedByKey(marks);
        RowLocator rows = queue.locate(connection, keysOf(sorted), now);
        int released = 0;
        try (PreparedStatement update = connection.prepareStatement(RELEASE + rows.where())) {
            for (ClaimedMark mark : sorted) {
                int i = rows.bind(update, 1, mark.key());
                update.setString(i, mark.token());
                update.addBatch();
            }
            for (int count : update.executeBatch()) {
                released += Math.max(count, 0);
            }
        }
        return released;
    }

    /*
     * One key at a time in key order, each released or (its claim gone) marked again before the next: a re-mark
     * after a batch of releases would lock keys out of key order (docs/contract.md §3 lock order).
     */
    /**
     * Releases claims whose refresh was attempted and not finished (its batch failed), one key at a time in key
     * order; a key whose claim is no longer mine is marked again at LIVE priority instead (the attempt may have
     * written a read model after a newer refresh did). Returns how many were released.
     */
    public int abandon(Connection connection, List<ClaimedMark> marks, Instant now) throws SQLException {
        List<ClaimedMark> sorted = sortedByKey(marks);
        RowLocator rows = queue.locate(connection, keysOf(sorted), now);
        int released = 0;
        try (PreparedStatement update = connection.prepareStatement(RELEASE + rows.where())) {
            for (ClaimedMark mark : sorted) {
                int i = rows.bind(update, 1, mark.key());
                update.setString(i, mark.token());
                if (update.executeUpdate() == 1) {
                    released++;
                } else {
                    queue.reMarkLive(connection, mark.key(), now);
                }
            }
        }
        return released;
    }

    /**
     * Releases those of {@code keys} still claimed under {@code token}, by primary key in key order, and nothing
     * else; for a claim whose commit may have happened although the claimer saw it fail. Returns how many.
     */
    public int releaseToken(Connection connection, String token, List<MarkKey> keys, Instant now)
            throws SQLException {
        List<MarkKey> sorted = new ArrayList<>(keys);
        sorted.sort(null);
        RowLocator rows = queue.locate(connection, sorted, now);
        int released = 0;
        try (PreparedStatement update = connection.prepareStatement(RELEASE + rows.where())) {
            for (MarkKey key : sorted) {
                int i = rows.bind(update, 1, key);
                update.setString(i, token);
                released += update.executeUpdate();
            }
        }
        return released;
    }

    /**
     * Gives claims that are still mine a fresh lease until {@code now + lease}, for marks a worker keeps after its
     * batch used up their lease; returns them with their new lease. A key whose claim is gone is marked again at
     * LIVE priority and left out.
     */
    public List<ClaimedMark> renew(Connection connection, List<ClaimedMark> marks, Instant now, Duration lease)
            throws SQLException {
        Instant leaseUntil = now.plus(lease);
        List<ClaimedMark> sorted = sortedByKey(marks);
        RowLocator rows = queue.locate(connection, keysOf(sorted), now);
        List<ClaimedMark> renewed = new ArrayList<>();
        try (PreparedStatement update = connection.prepareStatement(RENEW + rows.where())) {
            for (ClaimedMark mark : sorted) {
                update.setObject(1, queue.dialect.timestamp(leaseUntil));
                int i = rows.bind(update, 2, mark.key());
                update.setString(i, mark.token());
                if (update.executeUpdate() == 1) {
                    renewed.add(new ClaimedMark(mark.key(), mark.generation(), mark.token(), mark.claimedAt(),
                            leaseUntil, mark.attempts(), mark.priority(), null, mark.firstMarkedAt()));
                } else {
                    queue.reMarkLive(connection, mark.key(), now);
                }
            }
        }
        return renewed;
    }

    /**
     * Gives back a claim without counting an attempt, due again at {@code until}: a failed probe's (so the next probe
     * tries another mark first), or one whose refresh met back-pressure rather than a fault; false, and the key
     * marked again LIVE, when the claim was no longer mine.
     */
    public boolean giveBackUntried(Connection connection, ClaimedMark mark, Instant now, Instant until)
            throws SQLException {
        return updateWhileClaimed(connection, GIVE_BACK_UNTRIED, mark, now, queue.dialect.timestamp(until));
    }

    /**
     * Records a failure and releases the claim, due again at {@code retryAt}, only while the claim is still mine;
     * false when it was not, and then the key is marked again at LIVE priority (its refresh may have written a
     * read model after a newer refresh did).
     */
    public boolean recordFailure(Connection connection, ClaimedMark mark, String error, Instant now, Instant retryAt)
            throws SQLException {
        Dialect dialect = queue.dialect;
        return updateWhileClaimed(connection, RECORD_FAILURE, mark, now, dialect.timestamp(retryAt),
                dialect.timestamp(now), truncate(error), dialect.timestamp(now));
    }

    /**
     * Records a failure as {@link #recordFailure} does and parks the mark: never claimed again until resumed.
     * False, and the key marked again LIVE, when the claim was no longer mine.
     */
    public boolean park(Connection connection, ClaimedMark mark, String error, Instant now) throws SQLException {
        Dialect dialect = queue.dialect;
        return updateWhileClaimed(connection, PARK, mark, now, dialect.timestamp(PendingQueue.PARKED_UNTIL),
                dialect.timestamp(now), truncate(error), dialect.timestamp(now), dialect.timestamp(now));
    }

    /**
     * Runs {@code sql} — {@code values}, then the key and the claim token — on a mark while the claim is still
     * mine; when it is not, the key is marked again at LIVE priority (the attempt may have written a read model after
     * a newer refresh did) and the answer is false.
     */
    private boolean updateWhileClaimed(Connection connection, String sql, ClaimedMark mark, Instant now,
                                       Object... values) throws SQLException {
        RowLocator rows = queue.locate(connection, List.of(mark.key()), now);
        try (PreparedStatement update = connection.prepareStatement(sql + rows.where())) {
            int i = 1;
            for (Object value : values) {
                update.setObject(i++, value);
            }
            i = rows.bind(update, i, mark.key());
            update.setString(i, mark.token());
            if (update.executeUpdate() == 1) {
                return true;
            }
        }
        queue.reMarkLive(connection, mark.key(), now);
        return false;
    }
}
