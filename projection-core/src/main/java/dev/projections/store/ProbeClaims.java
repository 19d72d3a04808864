package dev.projections.store;

import static dev.projections.store.Statements.bindKey;

import dev.projections.MarkKey;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The claim of a suspended projection's probe (docs/contract.md §6): one due mark, the suspension notwithstanding,
 * claimed as the queue claims (same columns, same lease), tried one candidate at a time.
 */
public final class ProbeClaims {

    /* a suspended projection's due marks, claimable but for the suspension: a handful, for one probe */
    private static final String PROBE_CANDIDATES = """
            SELECT projection, tenant_id, entity_id, generation, attempts, priority, first_marked_at FROM projection_pending
             WHERE projection = ? AND available_at <= ? AND (claimed_until IS NULL OR claimed_until <= ?)
               AND EXISTS (SELECT 1 FROM projection_control c WHERE c.projection = projection_pending.projection
                                                                AND c.paused AND c.suspended_reason IS NOT NULL)
             ORDER BY available_at%s
            """;

    private final PendingQueue queue;
    private final Dialect dialect;

    ProbeClaims(PendingQueue queue) {
        this.queue = queue;
        this.dialect = queue.dialect;
    }

    /**
     * Claims one due mark of suspended {@code projection} for a probe, the suspension notwithstanding; {@code null}
     * when none is due and free.
     */
    public ClaimedMark claim(Connection connection, String projection, Instant now, Duration lease, String token)
            throws SQLException {
        List<ClaimedMark> candidates = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement(PROBE_CANDIDATES.formatted(dialect.firstRows(5)))) {
            select.setString(1, projection);
            select.setObject(2, dialect.timestamp(now));
            select.setObject(3, dialect.timestamp(now));
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    candidates.add(new ClaimedMark(new MarkKey(rows.getString(1), rows.getString(2), rows.getString(3)),
                            rows.getString(4), token, now, now.plus(lease), rows.getInt(5), rows.getInt(6), null,
                            dialect.instant(rows, 7)));
                }
            }
        }
        // read without a lock, then tried one at a time in due order (a deferred probe's mark comes last): the
        // first still free is the probe, whatever the database
        ClaimedMark probe = null;
        for (ClaimedMark candidate : candidates) {
            List<ClaimedMark> locked = queue.candidateLocks.lock(connection, List.of(candidate), now);
            if (!locked.isEmpty()) {
                probe = locked.get(0);
                break;
            }
        }
        if (probe == null) {
            return null;
        }
        try (PreparedStatement update = connection.prepareStatement(PendingQueue.SET_CLAIM)) {
            update.setString(1, token);
            update.setObject(2, dialect.timestamp(probe.leaseUntil()));
            update.setString(3, queue.holder);
            bindKey(update, 4, probe.key());
            update.executeUpdate();
        }
        return probe;
    }
}
