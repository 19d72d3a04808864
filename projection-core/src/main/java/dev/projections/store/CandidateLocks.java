package dev.projections.store;

import static dev.projections.store.Statements.bindKey;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Candidates read without a lock, then locked one row at a time in key order, keeping those still claimable and
 * free with their current state. The claim uses it where a locking read under a row limit locks more than it returns
 * (H2, {@link Dialect#locksOnlyReturnedRows()}): a second claimer would find nothing and business upserts would wait
 * for the whole backlog. A probe uses it on every database, to take the first of a few candidates still free.
 */
final class CandidateLocks {

    /* locks one candidate row if it is still claimable and nobody holds it */
    private static final String LOCK_CANDIDATE = """
            SELECT generation, attempts, priority, first_marked_at FROM projection_pending
             WHERE projection = ? AND tenant_id = ? AND entity_id = ?
               AND available_at <= ? AND (claimed_until IS NULL OR claimed_until <= ?)
               FOR UPDATE SKIP LOCKED
            """;

    private final Dialect dialect;

    CandidateLocks(Dialect dialect) {
        this.dialect = dialect;
    }

    /** Locks {@code candidates} in key order; the result holds those still claimable and free, as they are now. */
    List<ClaimedMark> lock(Connection connection, List<ClaimedMark> candidates, Instant now) throws SQLException {
        List<ClaimedMark> locked = new ArrayList<>();
        try (PreparedStatement lock = connection.prepareStatement(LOCK_CANDIDATE)) {
            for (ClaimedMark candidate : PendingQueue.sortedByKey(candidates)) {
                int i = bindKey(lock, 1, candidate.key());
                lock.setObject(i++, dialect.timestamp(now));
                lock.setObject(i, dialect.timestamp(now));
                try (ResultSet row = lock.executeQuery()) {
                    if (row.next()) {
                        locked.add(new ClaimedMark(candidate.key(), row.getString(1), candidate.token(),
                                candidate.claimedAt(), candidate.leaseUntil(), row.getInt(2), row.getInt(3), null,
                                dialect.instant(row, 4)));
                    }
                }
            }
        }
        return locked;
    }
}
