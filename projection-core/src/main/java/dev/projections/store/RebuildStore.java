package dev.projections.store;

import static dev.projections.store.Timestamps.utc;

import dev.projections.RebuildProgress;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.Collection;
import java.util.Collections;
import java.util.Optional;
import java.util.UUID;

/**
 * The statements of {@code projection_rebuild} (docs/contract.md §7), standard SQL on PostgreSQL and H2. A run is stepped by
 * whichever worker leases it; the lease only lasts a step, so a run whose worker died mid-step is taken over
 * when its lease lapses, and resumes from the cursor its last committed step left.
 */
public final class RebuildStore {

    private static final String DUPLICATE_KEY = "23505";

    private static final String START = """
            INSERT INTO projection_rebuild (run_id, projection, tenant_id, state, marked, exhausted, started_at,
                                            running_projection, running_tenant)
            VALUES (?, ?, ?, 'RUNNING', 0, FALSE, ?, ?, ?)
            """;

    private static final String RUNNING_RUN =
            "SELECT run_id FROM projection_rebuild WHERE running_projection = ? AND running_tenant = ?";

    private static final String LEASE_CANDIDATE = """
            SELECT run_id, projection, tenant_id, cursor_id FROM projection_rebuild
             WHERE state = 'RUNNING' AND exhausted = FALSE AND projection IN (%s)
               AND (lease_until IS NULL OR lease_until <= ?)
             ORDER BY started_at
             FETCH FIRST 1 ROWS ONLY
               FOR UPDATE SKIP LOCKED
            """;

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
                   AND (lease_until IS NULL OR lease_until <= ?) OR exhausted = TRUE)
             FETCH FIRST 1 ROWS ONLY
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
        try (PreparedStatement insert = connection.prepareStatement(START)) {
            insert.setString(1, runId);
            insert.setString(2, projection);
            insert.setString(3, tenant);
            insert.setObject(4, utc(now));
            insert.setString(5, projection);
            insert.setString(6, tenant);
            insert.executeUpdate();
            return runId;
        } catch (SQLException e) {
            if (DUPLICATE_KEY.equals(e.getSQLState())) {
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
        RebuildRun run;
        try (PreparedStatement select = connection.prepareStatement(
                LEASE_CANDIDATE.formatted(String.join(", ", Collections.nCopies(projections.size(), "?"))))) {
            int i = 1;
            for (String projection : projections) {
                select.setString(i++, projection);
            }
            select.setObject(i, utc(now));
            try (ResultSet rows = select.executeQuery()) {
                if (!rows.next()) {
                    return Optional.empty();
                }
                run = new RebuildRun(rows.getString(1), rows.getString(2), rows.getString(3), rows.getString(4), token);
            }
        }
        try (PreparedStatement update = connection.prepareStatement(SET_LEASE)) {
            update.setString(1, token);
            update.setObject(2, utc(now.plus(lease)));
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
            update.setString(1, SqlPendingStore.truncate(error));
            update.setObject(2, utc(now));
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
                update.setObject(2, utc(now));
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
        try (PreparedStatement select = connection.prepareStatement(
                ANY_RUNNABLE.formatted(String.join(", ", Collections.nCopies(projections.size(), "?"))))) {
            int i = 1;
            for (String projection : projections) {
                select.setString(i++, projection);
            }
            select.setObject(i, utc(now));
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
                + " FETCH FIRST 1 ROWS ONLY", now, projection, tenant);
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
                String state = rows.getString(4);
                long remaining = rows.getLong(9);
                Instant started = instant(rows, 6);
                Instant finished = instant(rows, 7);
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

    private static Instant instant(ResultSet rows, int column) throws SQLException {
        OffsetDateTime value = rows.getObject(column, OffsetDateTime.class);
        return value == null ? null : value.toInstant();
    }
}
