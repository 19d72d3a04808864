package dev.projections.store;

import dev.projections.RebuildProgress;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Collections;
import java.util.Optional;
import java.util.UUID;

/**
 * The statements of {@code projection_rebuild} (docs/contract.md §7), on every {@link Dialect}. A run is stepped by
 * whichever worker leases it; the lease only lasts a step, so a run whose worker died mid-step is taken over
 * when its lease lapses, and resumes from the cursor its last committed step left.
 */
public final class RebuildStore {

    private static final String START = """
            INSERT INTO projection_rebuild (run_id, projection, tenant_id, state, marked, exhausted, started_at,
                                            running_projection, running_tenant)
            VALUES (?, ?, ?, 'RUNNING', 0, FALSE, ?, ?, ?)
            """;

    private static final String RUNNING_RUN =
            "SELECT run_id FROM projection_rebuild WHERE running_projection = ? AND running_tenant = ?";

    /*
     * Leasing reads the runnable runs without a lock, oldest first, then locks them one at a time until one is still
     * runnable and free. A single "ORDER BY started_at … FOR UPDATE SKIP LOCKED" under a row limit locks every row it
     * sorts on H2 (docs/pitfalls.md #23) and on MariaDB (no index gives that order, so it sorts what it locked): a
     * second stepper would find nothing while the first leases. Runs are few, so the extra statements cost nothing.
     */
    private static final String LEASE_CANDIDATES = """
            SELECT run_id FROM projection_rebuild
             WHERE state = 'RUNNING' AND exhausted = FALSE AND projection IN (%s)
               AND (lease_until IS NULL OR lease_until <= ?)
             ORDER BY started_at%s
            """;

    private static final String LOCK_CANDIDATE = """
            SELECT run_id, projection, tenant_id, cursor_id FROM projection_rebuild
             WHERE run_id = ? AND state = 'RUNNING' AND exhausted = FALSE AND (lease_until IS NULL OR lease_until <= ?)
               FOR UPDATE SKIP LOCKED
            """;

    /** At most this many candidates are tried per lease: the rest are held by other steppers right now. */
    private static final int CANDIDATES = 10;

    private static final String SET_LEASE =
            "UPDATE projection_rebuild SET owner_token = ?, lease_until = ? WHERE run_id = ?";

    private static final String ADVANCE = """
            UPDATE projection_rebuild
               SET cursor_id = ?, marked = marked + ?, exhausted = ?, owner_token = NULL, lease_until = NULL
             WHERE run_id = ? AND owner_token = ?
            """;

    private static final String FAIL = """
            UPDATE projection_rebuild
               SET state = 'FAILED', last_error = ?, finished_at = ?, owner_token = NULL, lease_until = NULL,
                   running_projection = NULL, running_tenant = NULL
             WHERE run_id = ? AND owner_token = ?
            """;

    /*
     * A run is finished when its cursor is exhausted and none of its rebuild marks waits but failing ones: those
     * stay as failing marks (retry them) and must not keep the run, and every new run, blocked. The end state says
     * which: FINISHED with nothing left, FINISHED_FAILING with failing marks left, never FINISHED with remaining > 0.
     */
    static final String FINISH_EXHAUSTED = """
            UPDATE projection_rebuild
               SET state = ?, finished_at = ?, running_projection = NULL, running_tenant = NULL
             WHERE state = 'RUNNING' AND exhausted = TRUE
               AND NOT EXISTS (SELECT 1 FROM projection_pending p
                                WHERE p.projection = projection_rebuild.projection
                                  AND p.tenant_id = projection_rebuild.tenant_id AND p.priority = 1%s)
            """;

    private static final String ANY_RUNNABLE = """
            SELECT 1 FROM projection_rebuild
             WHERE state = 'RUNNING' AND (exhausted = FALSE AND projection IN (%s)
                   AND (lease_until IS NULL OR lease_until <= ?) OR exhausted = TRUE)%s
            """;

    static final String PROGRESS = """
            SELECT r.run_id, r.projection, r.tenant_id, r.state, r.marked, r.started_at, r.finished_at, r.last_error,
                   (SELECT COUNT(*) FROM projection_pending p
                     WHERE p.projection = r.projection AND p.tenant_id = r.tenant_id AND p.priority = 1)
              FROM projection_rebuild r
            """;

    private static final String FAILING_REBUILD_MARKS = """
            SELECT COUNT(*) FROM projection_pending
             WHERE projection = ? AND tenant_id = ? AND priority = 1 AND attempts > 0
            """;

    public String start(Connection connection, String projection, String tenant, Instant now) throws SQLException {
        String running = runningRun(connection, projection, tenant);
        if (running != null) {
            throw new RebuildAlreadyRunningException(projection, tenant, running);
        }
        String runId = UUID.randomUUID().toString();
        Dialect dialect = Dialect.of(connection);
        try (PreparedStatement insert = connection.prepareStatement(START)) {
            insert.setString(1, runId);
            insert.setString(2, projection);
            insert.setString(3, tenant);
            insert.setObject(4, dialect.timestamp(now));
            insert.setString(5, projection);
            insert.setString(6, tenant);
            insert.executeUpdate();
            return runId;
        } catch (SQLException e) {
            if (dialect.isDuplicateKey(e)) {
                // started by another caller between the check and the insert
                throw new RebuildAlreadyRunningException(projection, tenant, "just started");
            }
            throw e;
        }
    }

    private static String runningRun(Connection connection, String projection, String tenant) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(RUNNING_RUN)) {
            select.setString(1, projection);
            select.setString(2, tenant);
            try (ResultSet rows = select.executeQuery()) {
                return rows.next() ? rows.getString(1) : null;
            }
        }
    }

    /** Leases the oldest runnable run of {@code projections} for one step. */
    public Optional<RebuildRun> lease(Connection connection, Collection<String> projections, Instant now,
                                      Duration lease, String token) throws SQLException {
        if (projections.isEmpty()) {
            return Optional.empty();
        }
        Dialect dialect = Dialect.of(connection);
        java.util.List<String> candidates = new java.util.ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement(LEASE_CANDIDATES.formatted(
                String.join(", ", Collections.nCopies(projections.size(), "?")), dialect.firstRows(CANDIDATES)))) {
            int i = 1;
            for (String projection : projections) {
                select.setString(i++, projection);
            }
            select.setObject(i, dialect.timestamp(now));
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    candidates.add(rows.getString(1));
                }
            }
        }
        RebuildRun run = null;
        try (PreparedStatement lock = connection.prepareStatement(LOCK_CANDIDATE)) {
            for (String candidate : candidates) {
                lock.setString(1, candidate);
                lock.setObject(2, dialect.timestamp(now));
                try (ResultSet rows = lock.executeQuery()) {
                    if (rows.next()) {
                        run = new RebuildRun(rows.getString(1), rows.getString(2), rows.getString(3), rows.getString(4),
                                token);
                        break;
                    }
                }
            }
        }
        if (run == null) {
            return Optional.empty();
        }
        try (PreparedStatement update = connection.prepareStatement(SET_LEASE)) {
            update.setString(1, token);
            update.setObject(2, dialect.timestamp(now.plus(lease)));
            update.setString(3, run.runId());
            update.executeUpdate();
        }
        return Optional.of(run);
    }

    /** Records a step and ends its lease; false when the lease was lost (the step must roll back). */
    public boolean advance(Connection connection, RebuildRun run, String cursor, int marked, boolean exhausted)
            throws SQLException {
        try (PreparedStatement update = connection.prepareStatement(ADVANCE)) {
            update.setString(1, cursor);
            update.setInt(2, marked);
            update.setBoolean(3, exhausted);
            update.setString(4, run.runId());
            update.setString(5, run.token());
            return update.executeUpdate() == 1;
        }
    }

    public void fail(Connection connection, RebuildRun run, String error, Instant now) throws SQLException {
        try (PreparedStatement update = connection.prepareStatement(FAIL)) {
            update.setString(1, Statements.truncate(error));
            update.setObject(2, Dialect.of(connection).timestamp(now));
            update.setString(3, run.runId());
            update.setString(4, run.token());
            update.executeUpdate();
        }
    }

    /** Ends the exhausted runs that have nothing left to wait for; returns how many. */
    public int finishExhausted(Connection connection, Instant now) throws SQLException {
        int finished = 0;
        // the second only where failing marks are left: a mark acked between the two statements must not turn a
        // clean finish into "finished, 0 failing"
        for (String[] end : new String[][] {{RebuildProgress.FINISHED, ""},
                {RebuildProgress.FINISHED_FAILING, " AND p.attempts = 0) AND EXISTS (SELECT 1 FROM projection_pending f"
                        + " WHERE f.projection = projection_rebuild.projection AND f.tenant_id = projection_rebuild.tenant_id"
                        + " AND f.priority = 1 AND f.attempts > 0"}}) {
            try (PreparedStatement update = connection.prepareStatement(FINISH_EXHAUSTED.formatted(end[1]))) {
                update.setString(1, end[0]);
                update.setObject(2, Dialect.of(connection).timestamp(now));
                finished += update.executeUpdate();
            }
        }
        return finished;
    }

    /** Whether a run can be stepped, or waits to be finished. */
    public boolean hasWork(Connection connection, Collection<String> projections, Instant now) throws SQLException {
        if (projections.isEmpty()) {
            return false;
        }
        Dialect dialect = Dialect.of(connection);
        try (PreparedStatement select = connection.prepareStatement(ANY_RUNNABLE.formatted(
                String.join(", ", Collections.nCopies(projections.size(), "?")), dialect.firstRows(1)))) {
            int i = 1;
            for (String projection : projections) {
                select.setString(i++, projection);
            }
            select.setObject(i, dialect.timestamp(now));
            try (ResultSet rows = select.executeQuery()) {
                return rows.next();
            }
        }
    }

    public Optional<RebuildProgress> progress(Connection connection, String runId, Instant now) throws SQLException {
        return one(connection, PROGRESS + " WHERE r.run_id = ?", now, runId);
    }

    public Optional<RebuildProgress> latest(Connection connection, String projection, String tenant, Instant now)
            throws SQLException {
        return one(connection, PROGRESS + " WHERE r.projection = ? AND r.tenant_id = ? ORDER BY r.started_at DESC"
                + Dialect.of(connection).firstRows(1), now, projection, tenant);
    }

    private static Optional<RebuildProgress> one(Connection connection, String sql, Instant now, String... parameters)
            throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(sql)) {
            for (int i = 0; i < parameters.length; i++) {
                select.setString(i + 1, parameters[i]);
            }
            try (ResultSet rows = select.executeQuery()) {
                if (!rows.next()) {
                    return Optional.empty();
                }
                Dialect dialect = Dialect.of(connection);
                String state = rows.getString(4);
                long remaining = rows.getLong(9);
                Instant started = dialect.instant(rows, 6);
                Instant finished = dialect.instant(rows, 7);
                long marked = rows.getLong(5);
                double seconds = Math.max(0.001, Duration.between(started, finished == null ? now : finished).toMillis() / 1000.0);
                // only a run that ended with failing marks counts them: a second scan of a big run's marks on
                // every progress poll would cost as much as the first
                long failing = RebuildProgress.FINISHED_FAILING.equals(state) && remaining > 0
                        ? failing(connection, rows.getString(2), rows.getString(3)) : 0;
                return Optional.of(new RebuildProgress(rows.getString(1), rows.getString(2), rows.getString(3),
                        state, marked, remaining, failing, marked / seconds, started, finished, rows.getString(8)));
            }
        }
    }

    private static long failing(Connection connection, String projection, String tenant) throws SQLException {
        try (PreparedStatement count = connection.prepareStatement(FAILING_REBUILD_MARKS)) {
            count.setString(1, projection);
            count.setString(2, tenant);
            try (ResultSet rows = count.executeQuery()) {
                rows.next();
                return rows.getLong(1);
            }
        }
    }
}
