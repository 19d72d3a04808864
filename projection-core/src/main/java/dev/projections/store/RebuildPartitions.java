package dev.projections.store;

import static dev.projections.store.RebuildHistory.scope;

import dev.projections.RebuildScope;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

/**
 * {@code projection_rebuild_partition} (docs/contract.md §7): a run's id ranges, each with its own cursor and lease. A
 * partition is stepped by whichever worker leases it, and the lease only lasts a step, so a partition whose worker
 * died mid-step is taken over when its lease lapses, and resumes from the cursor its last committed step left.
 */
public final class RebuildPartitions {

    private static final String START_PARTITION = """
            INSERT INTO projection_rebuild_partition (run_id, partition_no, range_after, range_up_to, cursor_id,
                                                      exhausted, marked, takeovers, walks)
            VALUES (?, ?, ?, ?, ?, FALSE, 0, 0, ?)
            """;

    /** A partition that pages through the write model's ids, as every rebuild's. */
    static final String IDS = "IDS";
    /** A verification's partition that pages through the read model's own ids (docs/design.md D57). */
    static final String READ_MODEL = "READ_MODEL";

    /*
     * Leasing reads the runnable partitions without a lock, oldest run first, then locks them one at a time until one
     * is still runnable and free. A single "ORDER BY … FOR UPDATE SKIP LOCKED" under a row limit locks every row it
     * sorts on H2 (docs/pitfalls.md #23) and on MariaDB (no index gives that order, so it sorts what it locked): a
     * second stepper would find nothing while the first leases. Partitions are few, so the extra statements cost
     * nothing.
     */
    private static final String LEASE_CANDIDATES = """
            SELECT p.run_id, p.partition_no FROM projection_rebuild_partition p
              JOIN projection_rebuild r ON r.run_id = p.run_id
             WHERE r.state = 'RUNNING' AND p.exhausted = FALSE AND r.projection IN (%s)
               AND (p.lease_until IS NULL OR p.lease_until <= ?) AND %s
             ORDER BY r.started_at, p.partition_no%s
            """;

    private static final String LOCK_CANDIDATE = """
            SELECT cursor_id, range_up_to, owner_token, walks FROM projection_rebuild_partition
             WHERE run_id = ? AND partition_no = ? AND exhausted = FALSE AND (lease_until IS NULL OR lease_until <= ?)
               AND EXISTS (SELECT 1 FROM projection_rebuild r WHERE r.run_id = ? AND r.state = 'RUNNING')
               FOR UPDATE SKIP LOCKED
            """;

    /*
     * A verification's read-model partition is stepped once its write-model partitions are all exhausted: what they
     * marked has committed by then, so a drifted key they marked and that still waits is seen and not counted again
     * (RebuildStepper); stepped beside them, two uncommitted steps could each count the same key.
     */
    static final String IDS_WALKED_FIRST = """
            (p.walks = 'IDS' OR NOT EXISTS (SELECT 1 FROM projection_rebuild_partition o
                                             WHERE o.run_id = p.run_id AND o.walks = 'IDS' AND o.exhausted = FALSE))""";

    private static final String ADOPT_PARTITION = """
            INSERT INTO projection_rebuild_partition (run_id, partition_no, range_after, range_up_to, cursor_id,
                                                      exhausted, marked, takeovers)
            VALUES (?, 0, NULL, NULL, ?, ?, ?, 0)
            """;

    private static final String RUN_OF_PARTITION = """
            SELECT projection, tenant_id, scope_from, scope_to, scope_changed_since, scope_filter, kind
              FROM projection_rebuild WHERE run_id = ?
            """;

    /** At most this many candidates are tried per lease: the rest are held by other steppers right now. */
    private static final int CANDIDATES = 10;

    /* an owner still set on a lapsed lease is a step that never ended: its worker died or lost its database */
    private static final String SET_LEASE = """
            UPDATE projection_rebuild_partition
               SET owner_token = ?, lease_until = ?, takeovers = takeovers + ?
             WHERE run_id = ? AND partition_no = ?
            """;

    private static final String ADVANCE_PARTITION = """
            UPDATE projection_rebuild_partition
               SET cursor_id = ?, checked = checked + ?, marked = marked + ?, exhausted = ?, owner_token = NULL,
                   lease_until = NULL
             WHERE run_id = ? AND partition_no = ? AND owner_token = ?
            """;

    private final Dialect dialect;

    RebuildPartitions(Dialect dialect) {
        this.dialect = dialect;
    }

    /**
     * The {@code bounds.size() + 1} partitions of a new run: partition k lists the ids after bound k - 1 up to bound k;
     * with {@code readModel}, one more that pages through the read model's own ids, whole.
     */
    void create(Connection connection, String runId, List<String> bounds, boolean readModel) throws SQLException {
        int partitions = bounds.size() + 1;
        try (PreparedStatement insert = connection.prepareStatement(START_PARTITION)) {
            for (int k = 0; k < partitions; k++) {
                String after = k == 0 ? null : bounds.get(k - 1);
                insert.setString(1, runId);
                insert.setInt(2, k);
                insert.setString(3, after);
                insert.setString(4, k == partitions - 1 ? null : bounds.get(k));
                insert.setString(5, after);
                insert.setString(6, IDS);
                insert.addBatch();
            }
            if (readModel) {
                insert.setString(1, runId);
                insert.setInt(2, partitions);
                insert.setString(3, null);
                insert.setString(4, null);
                insert.setString(5, null);
                insert.setString(6, READ_MODEL);
                insert.addBatch();
            }
            insert.executeBatch();
        }
    }

    /** Leases the first runnable partition of the oldest run of {@code projections} for one step. */
    public Optional<RebuildRun> lease(Connection connection, Collection<String> projections, Instant now,
                                      Duration lease, String token) throws SQLException {
        if (projections.isEmpty()) {
            return Optional.empty();
        }
        List<Object[]> candidates = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement(LEASE_CANDIDATES.formatted(
                placeholders(projections), IDS_WALKED_FIRST, dialect.firstRows(CANDIDATES)))) {
            int i = 1;
            for (String projection : projections) {
                select.setString(i++, projection);
            }
            select.setObject(i, dialect.timestamp(now));
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    candidates.add(new Object[] {rows.getString(1), rows.getInt(2)});
                }
            }
        }
        for (Object[] candidate : candidates) {
            String runId = (String) candidate[0];
            int partition = (Integer) candidate[1];
            try (PreparedStatement lock = connection.prepareStatement(dialect.lockingRead(connection, LOCK_CANDIDATE))) {
                lock.setString(1, runId);
                lock.setInt(2, partition);
                lock.setObject(3, dialect.timestamp(now));
                lock.setString(4, runId);
                try (ResultSet rows = lock.executeQuery()) {
                    if (rows.next()) {
                        RebuildRun run = leased(connection, runId, partition, rows.getString(1), rows.getString(2), token,
                                READ_MODEL.equals(rows.getString(4)));
                        setLease(connection, run, now.plus(lease), rows.getString(3) != null);
                        return Optional.of(run);
                    }
                }
            }
        }
        return Optional.empty();
    }

    private RebuildRun leased(Connection connection, String runId, int partition, String cursor, String upTo,
                              String token, boolean readModel) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(RUN_OF_PARTITION)) {
            select.setString(1, runId);
            try (ResultSet rows = select.executeQuery()) {
                rows.next();
                RebuildScope scope = scope(dialect, rows, 3);
                return new RebuildRun(runId, partition, rows.getString(1), rows.getString(2), cursor,
                        upTo == null ? scope : scope.withTo(upTo), token, rows.getString(7), readModel);
            }
        }
    }

    private void setLease(Connection connection, RebuildRun run, Instant until, boolean takenOver)
            throws SQLException {
        try (PreparedStatement update = connection.prepareStatement(SET_LEASE)) {
            update.setString(1, run.token());
            update.setObject(2, dialect.timestamp(until));
            update.setInt(3, takenOver ? 1 : 0);
            update.setString(4, run.runId());
            update.setInt(5, run.partition());
            update.executeUpdate();
        }
    }

    /** Records a step of the leased partition and ends its lease; false when the lease was lost. */
    boolean advance(Connection connection, RebuildRun run, String cursor, int checked, int marked, boolean exhausted)
            throws SQLException {
        try (PreparedStatement update = connection.prepareStatement(ADVANCE_PARTITION)) {
            update.setString(1, cursor);
            update.setInt(2, checked);
            update.setInt(3, marked);
            update.setBoolean(4, exhausted);
            update.setString(5, run.runId());
            update.setInt(6, run.partition());
            update.setString(7, run.token());
            return update.executeUpdate() == 1;
        }
    }

    /** Partition 0 of a run a release before partitions started, from where that release's steps left it. */
    void adopt(Connection connection, String runId, String cursor, boolean exhausted, long marked)
            throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement(ADOPT_PARTITION)) {
            insert.setString(1, runId);
            insert.setString(2, cursor);
            insert.setBoolean(3, exhausted);
            insert.setLong(4, marked);
            insert.executeUpdate();
        }
    }

    private static String placeholders(Collection<String> values) {
        return String.join(", ", Collections.nCopies(values.size(), "?"));
    }
}
