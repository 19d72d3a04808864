package dev.projections.store;

import static dev.projections.store.Statements.truncate;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * {@code projection_control}: a projection paused by an operator or suspended by the engine, on every instance
 * (docs/contract.md §6), and the probe turn that decides which instance tries a suspended projection's marks. The
 * claim queries of {@link PendingQueue} read the {@code paused} column; only this class writes it. The two upserts
 * differ per database, and are chosen here, side by side.
 */
public final class ControlTable {

    private static final String PAUSED = "SELECT projection FROM projection_control WHERE paused";

    private static final String SUSPENSIONS = """
            SELECT projection, suspended_reason, paused_by, paused_at FROM projection_control
             WHERE paused AND suspended_reason IS NOT NULL
            """;

    /* one instance per probe interval: whoever moves probed_at first */
    private static final String TAKE_PROBE_TURN = """
            UPDATE projection_control SET probed_at = ?
             WHERE projection = ? AND paused AND suspended_reason IS NOT NULL
               AND (probed_at IS NULL OR probed_at <= ?)
            """;

    /* only a suspension: an operator's pause set meanwhile stays */
    private static final String LIFT_SUSPENSION = """
            UPDATE projection_control SET paused = FALSE, suspended_reason = NULL, probed_at = NULL
             WHERE projection = ? AND paused AND suspended_reason IS NOT NULL
            """;

    /* one conditional statement: of two resumes at once (or a resume and a probe's lift) one ends the pause */
    private static final String RESUME_IF_PAUSED = """
            UPDATE projection_control SET paused = FALSE, paused_by = ?, paused_at = ?, suspended_reason = NULL,
                   probed_at = NULL
             WHERE projection = ? AND paused
            """;

    private static final String POSTGRES_SET_PAUSED = """
            INSERT INTO projection_control (projection, paused, paused_by, paused_at, suspended_reason, probed_at)
            VALUES (?, ?, ?, ?, ?, NULL)
            ON CONFLICT (projection) DO UPDATE SET paused = EXCLUDED.paused, paused_by = EXCLUDED.paused_by,
                   paused_at = EXCLUDED.paused_at, suspended_reason = EXCLUDED.suspended_reason, probed_at = NULL
            """;

    private static final String H2_SET_PAUSED = """
            MERGE INTO projection_control (projection, paused, paused_by, paused_at, suspended_reason, probed_at)
            KEY (projection) VALUES (?, ?, ?, ?, ?, NULL)
            """;

    private static final String MARIADB_SET_PAUSED = """
            INSERT INTO projection_control (projection, paused, paused_by, paused_at, suspended_reason, probed_at)
            VALUES (?, ?, ?, ?, ?, NULL)
            ON DUPLICATE KEY UPDATE paused = VALUES(paused), paused_by = VALUES(paused_by),
                   paused_at = VALUES(paused_at), suspended_reason = VALUES(suspended_reason), probed_at = NULL
            """;

    /* the update's WHERE leaves a paused row alone: an operator's pause is never turned into a suspension */
    private static final String POSTGRES_SUSPEND_IF_RUNNING = """
            INSERT INTO projection_control (projection, paused, paused_by, paused_at, suspended_reason, probed_at)
            VALUES (?, TRUE, ?, ?, ?, NULL)
            ON CONFLICT (projection) DO UPDATE SET paused = TRUE, paused_by = EXCLUDED.paused_by,
                   paused_at = EXCLUDED.paused_at, suspended_reason = EXCLUDED.suspended_reason, probed_at = NULL
             WHERE NOT projection_control.paused
            """;

    /* WHEN MATCHED AND NOT paused: an operator's pause is never turned into a suspension */
    private static final String H2_SUSPEND_IF_RUNNING = """
            MERGE INTO projection_control t
            USING (SELECT CAST(? AS VARCHAR(100)) AS projection, CAST(? AS VARCHAR(200)) AS by_user,
                          CAST(? AS TIMESTAMP WITH TIME ZONE) AS at_time, CAST(? AS VARCHAR(1000)) AS reason) s
               ON t.projection = s.projection
             WHEN MATCHED AND NOT t.paused THEN UPDATE SET paused = TRUE, paused_by = s.by_user,
                  paused_at = s.at_time, suspended_reason = s.reason, probed_at = NULL
             WHEN NOT MATCHED THEN INSERT (projection, paused, paused_by, paused_at, suspended_reason)
                  VALUES (s.projection, TRUE, s.by_user, s.at_time, s.reason)
            """;

    /* MariaDB: makes sure the row exists, unpaused if it is new: the conditional update below then decides */
    private static final String ENSURE_CONTROL_ROW = """
            INSERT INTO projection_control (projection, paused) VALUES (?, FALSE)
            ON DUPLICATE KEY UPDATE projection = projection
            """;

    /* only a running projection: an operator's pause is never turned into a suspension */
    private static final String SUSPEND_RUNNING = """
            UPDATE projection_control SET paused = TRUE, paused_by = ?, paused_at = ?, suspended_reason = ?,
                   probed_at = NULL
             WHERE projection = ? AND NOT paused
            """;

    private final Dialect dialect;
    private final String setPaused;
    /** The one-statement suspension, or {@code null} where it takes two (MariaDB). */
    private final String suspendIfRunning;

    ControlTable(Dialect dialect) {
        this.dialect = dialect;
        this.setPaused = dialect.pick(POSTGRES_SET_PAUSED, H2_SET_PAUSED, MARIADB_SET_PAUSED);
        this.suspendIfRunning = dialect.pick(POSTGRES_SUSPEND_IF_RUNNING, H2_SUSPEND_IF_RUNNING, null);
    }

    /**
     * Pauses or resumes {@code projection} for every instance; {@code user} is recorded. Either ends a suspension:
     * an operator's pause is never probed, a resume lifts it.
     */
    public void setPaused(Connection connection, String projection, boolean paused, String user, Instant now)
            throws SQLException {
        writeControl(connection, projection, paused, user, now, null);
    }

    /**
     * Suspends {@code projection} for every instance (docs/contract.md §6): paused, as every claim query reads it, with
     * the reason that makes it a suspension — probed, and lifted by the first probe that succeeds.
     */
    public void suspend(Connection connection, String projection, String reason, String user, Instant now)
            throws SQLException {
        writeControl(connection, projection, true, user, now, truncate(reason, 1000));
    }

    private void writeControl(Connection connection, String projection, boolean paused, String user, Instant now,
                              String suspendedReason) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(setPaused)) {
            statement.setString(1, projection);
            statement.setBoolean(2, paused);
            statement.setString(3, user);
            statement.setObject(4, dialect.timestamp(now));
            statement.setString(5, suspendedReason);
            statement.executeUpdate();
        }
    }

    /**
     * The engine's suspension: as {@link #suspend}, but only when {@code projection} is not paused (an operator's
     * pause is never turned into one, whatever commits in between); true when it suspended it.
     */
    public boolean suspendIfRunning(Connection connection, String projection, String reason, String user, Instant now)
            throws SQLException {
        if (suspendIfRunning == null) {
            return suspendRunningInTwoStatements(connection, projection, reason, user, now);
        }
        try (PreparedStatement statement = connection.prepareStatement(suspendIfRunning)) {
            statement.setString(1, projection);
            statement.setString(2, user);
            statement.setObject(3, dialect.timestamp(now));
            statement.setString(4, truncate(reason, 1000));
            return statement.executeUpdate() == 1;
        }
    }

    /*
     * MariaDB's, in two statements, not one INSERT … ON DUPLICATE KEY UPDATE with conditional assignments: that
     * statement's count cannot tell "inserted" from "found paused, left alone" (1 for both while the driver reports
     * found rows, its default), and the answer says whether this instance suspended the projection.
     */
    private boolean suspendRunningInTwoStatements(Connection connection, String projection, String reason, String user,
                                                  Instant now) throws SQLException {
        try (PreparedStatement ensure = connection.prepareStatement(ENSURE_CONTROL_ROW)) {
            ensure.setString(1, projection);
            ensure.executeUpdate();
        }
        try (PreparedStatement update = connection.prepareStatement(SUSPEND_RUNNING)) {
            update.setString(1, user);
            update.setObject(2, dialect.timestamp(now));
            update.setString(3, truncate(reason, 1000));
            update.setString(4, projection);
            return update.executeUpdate() == 1;
        }
    }

    /** The suspended projections (not those an operator paused). */
    public Map<String, Suspension> suspensions(Connection connection) throws SQLException {
        Map<String, Suspension> suspended = new TreeMap<>();
        try (PreparedStatement select = connection.prepareStatement(SUSPENSIONS);
             ResultSet rows = select.executeQuery()) {
            while (rows.next()) {
                suspended.put(rows.getString(1), new Suspension(rows.getString(2), rows.getString(3),
                        dialect.instant(rows, 4)));
            }
        }
        return suspended;
    }

    /** Takes the probe's turn of suspended {@code projection}: true for one instance per {@code interval}. */
    public boolean takeProbeTurn(Connection connection, String projection, Instant now, Duration interval)
            throws SQLException {
        try (PreparedStatement update = connection.prepareStatement(TAKE_PROBE_TURN)) {
            update.setObject(1, dialect.timestamp(now));
            update.setString(2, projection);
            update.setObject(3, dialect.timestamp(now.minus(interval)));
            return update.executeUpdate() == 1;
        }
    }

    /**
     * Resumes {@code projection} if it is paused or suspended, recording {@code user}; false when it was running (then
     * nothing is written).
     */
    public boolean resumeIfPaused(Connection connection, String projection, String user, Instant now)
            throws SQLException {
        try (PreparedStatement update = connection.prepareStatement(RESUME_IF_PAUSED)) {
            update.setString(1, user);
            update.setObject(2, dialect.timestamp(now));
            update.setString(3, projection);
            return update.executeUpdate() == 1;
        }
    }

    /** Lifts the suspension of {@code projection}; false when it is no longer suspended (or an operator paused it). */
    public boolean liftSuspension(Connection connection, String projection) throws SQLException {
        try (PreparedStatement update = connection.prepareStatement(LIFT_SUSPENSION)) {
            update.setString(1, projection);
            return update.executeUpdate() == 1;
        }
    }

    /** Projections paused on every instance ({@code projection_control}). */
    public Set<String> paused(Connection connection) throws SQLException {
        Set<String> paused = new TreeSet<>();
        try (PreparedStatement select = connection.prepareStatement(PAUSED); ResultSet rows = select.executeQuery()) {
            while (rows.next()) {
                paused.add(rows.getString(1));
            }
        }
        return paused;
    }
}
