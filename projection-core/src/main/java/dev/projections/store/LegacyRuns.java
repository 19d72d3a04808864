package dev.projections.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs a previous release started during a rolling upgrade, adopted once that release no longer steps them (change
 * set 012, docs/design.md D40): the sweep's, through {@link RebuildRuns#adoptLegacyRuns}.
 */
final class LegacyRuns {

    /*
     * A run a previous release started after change set 012 (during a rolling upgrade) has no partition: that release
     * inserts only the run row, and steps it under the run row's own lease, which each of its steps sets and its
     * advance clears. Whenever no step of it holds that lease (between two steps, or for good once its instance
     * stopped) the run is adopted: fenced off from the previous release as 012 fenced the runs it converted — a step of
     * that release still under way then finds its token gone at its advance and rolls back — and given partition 0
     * from its cursor. Read without a lock first (a sweep finds none nearly always), then each one locked by its key
     * without waiting and checked again, so two adopters never both insert.
     */
    private static final String ORPHANED_LEGACY_RUNS = """
            SELECT run_id FROM projection_rebuild r
             WHERE state = 'RUNNING' AND (lease_until IS NULL OR lease_until <= ?)
               AND NOT EXISTS (SELECT 1 FROM projection_rebuild_partition p WHERE p.run_id = r.run_id)
            """;

    private static final String LOCK_ORPHANED_LEGACY_RUN = """
            SELECT run_id, cursor_id, exhausted, marked FROM projection_rebuild r
             WHERE run_id = ? AND state = 'RUNNING' AND (lease_until IS NULL OR lease_until <= ?)
               AND NOT EXISTS (SELECT 1 FROM projection_rebuild_partition p WHERE p.run_id = r.run_id)
               FOR UPDATE SKIP LOCKED
            """;

    private static final String FENCE_ADOPTED = """
            UPDATE projection_rebuild SET owner_token = 'partitioned', lease_until = ?, partitions = 1,
                   partitions_left = CASE WHEN exhausted THEN 0 ELSE 1 END
             WHERE run_id = ?
            """;

    private final Dialect dialect;
    private final RebuildPartitions partitions;

    LegacyRuns(Dialect dialect, RebuildPartitions partitions) {
        this.dialect = dialect;
        this.partitions = partitions;
    }

    /**
     * Adopts the runs a previous release started after change set 012 whose own lease lapsed (see
     * {@link #ORPHANED_LEGACY_RUNS}); returns how many. Run by the sweep: without it such a run stays RUNNING for ever
     * and blocks every new run of its projection and tenant.
     */
    int adopt(Connection connection, Instant now) throws SQLException {
        List<String> candidates = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement(ORPHANED_LEGACY_RUNS)) {
            select.setObject(1, dialect.timestamp(now));
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    candidates.add(rows.getString(1));
                }
            }
        }
        List<Object[]> orphans = new ArrayList<>();
        for (String candidate : candidates) {
            try (PreparedStatement lock = connection.prepareStatement(dialect.lockingRead(connection, LOCK_ORPHANED_LEGACY_RUN))) {
                lock.setString(1, candidate);
                lock.setObject(2, dialect.timestamp(now));
                try (ResultSet rows = lock.executeQuery()) {
                    if (rows.next()) {
                        orphans.add(new Object[] {rows.getString(1), rows.getString(2), rows.getBoolean(3), rows.getLong(4)});
                    }
                }
            }
        }
        for (Object[] orphan : orphans) {
            try (PreparedStatement fence = connection.prepareStatement(FENCE_ADOPTED)) {
                fence.setObject(1, dialect.timestamp(RebuildRuns.LEGACY_FENCE));
                fence.setString(2, (String) orphan[0]);
                fence.executeUpdate();
            }
            partitions.adopt(connection, (String) orphan[0], (String) orphan[1], (Boolean) orphan[2], (Long) orphan[3]);
        }
        return orphans.size();
    }
}
