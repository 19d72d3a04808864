package dev.projections.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.sql.Statement;

/**
 * A rebuild run's marks in {@code projection_pending} (docs/contract.md §7): those its steps wrote at rebuild
 * priority, counted to finish the run honestly (never FINISHED while one waits) and to report its failing ones, and
 * deleted in chunks once the run is cancelled, while live marks of the same keys stay.
 */
public final class RebuildMarks {

    /*
     * A run's own marks: those its steps wrote or took over (rebuild_run, change set 015), never another run's of the
     * same projection and tenant; a mark a release before 015 wrote has no run, and is the run's when first marked
     * since it started, as that release judged (in two instances' clocks, only during the upgrade).
     */
    private static final String OWN_MARK = "(rebuild_run = ? OR rebuild_run IS NULL AND first_marked_at >= ?)";

    private static final String FAILING_REBUILD_MARKS =
            "SELECT COUNT(*) FROM projection_pending WHERE projection = ? AND tenant_id = ? AND priority = 1 AND attempts > 0"
            + " AND " + OWN_MARK;

    private static final String CANCELLED_WITH_MARKS = """
            SELECT run_id FROM projection_rebuild
             WHERE state = 'CANCELLED' AND running_projection IS NOT NULL%s ORDER BY finished_at%s
            """;

    /* one purger per run at a time; the others go on with other work */
    private static final String LOCK_CANCELLED = """
            SELECT projection, tenant_id, started_at FROM projection_rebuild
             WHERE run_id = ? AND state = 'CANCELLED' AND running_projection IS NOT NULL
               FOR UPDATE SKIP LOCKED
            """;

    private static final String RELEASE_CANCELLED =
            "UPDATE projection_rebuild SET running_projection = NULL, running_tenant = NULL WHERE run_id = ?";

    private final Dialect dialect;

    RebuildMarks(Dialect dialect) {
        this.dialect = dialect;
    }

    /**
     * Deletes up to {@code limit} marks of the oldest cancelled run that still has some (see
     * {@link #deleteCancelledRunMarks}), holding the run's row meanwhile, and releases the run's projection
     * and tenant for a new run once none is left — claimed ones included, which end by their ack or failure. Only run
     * {@code onlyRun} when given. Returns how many it deleted, or -1 when no cancelled run is left to purge (or another
     * purger holds it).
     */
    public int purgeCancelled(Connection connection, String onlyRun, Instant now, int limit)
            throws SQLException {
        String runId;
        try (PreparedStatement select = connection.prepareStatement(CANCELLED_WITH_MARKS.formatted(
                onlyRun == null ? "" : " AND run_id = ?", dialect.firstRows(1)))) {
            if (onlyRun != null) {
                select.setString(1, onlyRun);
            }
            try (ResultSet rows = select.executeQuery()) {
                if (!rows.next()) {
                    return -1;
                }
                runId = rows.getString(1);
            }
        }
        String projection;
        String tenant;
        Instant started;
        try (PreparedStatement lock = connection.prepareStatement(LOCK_CANCELLED)) {
            lock.setString(1, runId);
            try (ResultSet rows = lock.executeQuery()) {
                if (!rows.next()) {
                    return -1;
                }
                projection = rows.getString(1);
                tenant = rows.getString(2);
                started = dialect.instant(rows, 3);
            }
        }
        int deleted = deleteCancelledRunMarks(connection, projection, tenant, runId, started, now, limit);
        if (deleted < limit && !hasCancelledRunMarks(connection, projection, tenant, runId, started)) {
            try (PreparedStatement update = connection.prepareStatement(RELEASE_CANCELLED)) {
                update.setString(1, runId);
                update.executeUpdate();
            }
        }
        return deleted;
    }

    /**
     * Deletes up to {@code limit} marks of cancelled run {@code runId} (docs/contract.md §7): its rebuild-priority
     * marks ({@code rebuild_run}; a mark a release before change set 015 wrote is the run's when first marked since
     * the run started, {@code since}), not failing, not parked, not claimed; returns how many. A mark a live change made again is at LIVE priority and stays; a failing or
     * parked mark of an earlier run stays for the operator; a claimed one ends by its ack or its failure. Candidates are
     * locked with SKIP LOCKED (those a business commit or a claim holds are left for the next chunk), in the database's
     * order of ids, not the commits' key order; where PostgreSQL makes that lock wait all the same (docs/pitfalls.md
     * #92) the transaction waits briefly and gives up, and the next pass purges. Then they are deleted by key.
     */
    int deleteCancelledRunMarks(Connection connection, String projection, String tenant, String runId,
                                       Instant since, Instant now, int limit) throws SQLException {
        List<String> ids = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement("""
                SELECT entity_id FROM projection_pending
                 WHERE projection = ? AND tenant_id = ? AND priority = 1 AND attempts = 0 AND parked_at IS NULL
                   AND (rebuild_run = ? OR rebuild_run IS NULL AND first_marked_at >= ?)
                   AND (claimed_until IS NULL OR claimed_until <= ?)"""
                + dialect.pick(" AND " + PostgresClaimStatements.BOUNDED_LOCK_WAITS, "", "")
                + " ORDER BY entity_id" + dialect.firstRows(limit) + (dialect.locksOnlyReturnedRows() ? " FOR UPDATE SKIP LOCKED" : ""))) {
            select.setString(1, projection);
            select.setString(2, tenant);
            select.setString(3, runId);
            select.setObject(4, dialect.timestamp(since));
            select.setObject(5, dialect.timestamp(now));
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    ids.add(rows.getString(1));
                }
            }
        }
        if (ids.isEmpty()) {
            return 0;
        }
        int deleted = 0;
        try (PreparedStatement delete = connection.prepareStatement("""
                DELETE FROM projection_pending
                 WHERE projection = ? AND tenant_id = ? AND entity_id = ? AND priority = 1 AND attempts = 0
                   AND parked_at IS NULL AND (claimed_until IS NULL OR claimed_until <= ?)""")) {
            for (String id : ids) {
                delete.setString(1, projection);
                delete.setString(2, tenant);
                delete.setString(3, id);
                delete.setObject(4, dialect.timestamp(now));
                delete.addBatch();
            }
            for (int count : delete.executeBatch()) {
                deleted += count == Statement.SUCCESS_NO_INFO ? 1 : count;
            }
        }
        return deleted;
    }

    /** Whether marks of a cancelled run are left to delete, claimed ones included (see {@link #deleteCancelledRunMarks}). */
    boolean hasCancelledRunMarks(Connection connection, String projection, String tenant, String runId,
                                        Instant since) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement("""
                SELECT 1 FROM projection_pending
                 WHERE projection = ? AND tenant_id = ? AND priority = 1 AND attempts = 0 AND parked_at IS NULL
                   AND (rebuild_run = ? OR rebuild_run IS NULL AND first_marked_at >= ?)""" + dialect.firstRows(1))) {
            select.setString(1, projection);
            select.setString(2, tenant);
            select.setString(3, runId);
            select.setObject(4, dialect.timestamp(since));
            try (ResultSet rows = select.executeQuery()) {
                return rows.next();
            }
        }
    }

    /** Whose marks: a run's, of its projection and tenant, known by its id and its start. */
    record RunMarks(String projection, String tenant, String runId, Instant started) {
        int bind(PreparedStatement statement, Dialect dialect) throws SQLException {
            statement.setString(1, projection);
            statement.setString(2, tenant);
            statement.setString(3, runId);
            statement.setObject(4, dialect.timestamp(started));
            return 5;
        }
    }

    /**
     * Whether a rebuild mark of a run (projection, tenant, run id, its start: {@link #OWN_MARK}) meeting
     * {@code condition} is pending.
     */
    static String rebuildMarkSql(Dialect dialect, String condition) {
        return "SELECT 1 FROM projection_pending WHERE projection = ? AND tenant_id = ? AND priority = 1 AND " + OWN_MARK
                + " AND " + condition + dialect.firstRows(1);
    }

    boolean anyRebuildMark(Connection connection, RunMarks marks, String condition)
            throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(rebuildMarkSql(dialect, condition))) {
            marks.bind(select, dialect);
            try (ResultSet rows = select.executeQuery()) {
                return rows.next();
            }
        }
    }

    long failing(Connection connection, RunMarks marks) throws SQLException {
        try (PreparedStatement count = connection.prepareStatement(FAILING_REBUILD_MARKS)) {
            marks.bind(count, dialect);
            try (ResultSet rows = count.executeQuery()) {
                rows.next();
                return rows.getLong(1);
            }
        }
    }
}
