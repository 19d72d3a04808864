package dev.projections.store;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * MariaDB's {@code innodb_snapshot_isolation} (docs/design.md D28, docs/pitfalls.md #73), switched off for the
 * product's own statements on connections whose transaction the application owns. From 11.6.2 it is ON by default:
 * a REPEATABLE READ transaction that read anything, then locks or writes a row another transaction changed since,
 * fails with ER_CHECKREAD (1020) and rolls back whole. A business transaction reads first and writes its marks at
 * commit, when a drainer has usually claimed, acked or re-marked the key meanwhile: with the check on, the user's
 * own changes would roll back because of the engine's writes. Our statements are reasoned at READ COMMITTED (they
 * decide on the latest committed row, never on a snapshot), so the check protects nothing of ours; the
 * application's own statements keep the setting it chose. MySQL and MariaDB releases before the variable have no
 * such check, and get the statements unchanged.
 */
final class SnapshotChecks {

    private static final String OFF_FOR = "SET STATEMENT innodb_snapshot_isolation = OFF FOR ";

    /* the session's value kept in a user variable, so that it is restored to what the application had */
    private static final String SUSPEND =
            "SET @projections_snapshot_isolation = @@SESSION.innodb_snapshot_isolation, SESSION innodb_snapshot_isolation = OFF";
    private static final String RESTORE = "SET SESSION innodb_snapshot_isolation = @projections_snapshot_isolation";

    /** Whether the server has the variable: asked once, on the first connection that needs to know. */
    private volatile Boolean present;

    /** {@code sql}, run without the check where the server has it. */
    String statement(Connection connection, String sql) throws SQLException {
        return present(connection) ? OFF_FOR + sql : sql;
    }

    /** Runs {@code work} on {@code connection} without the check where the server has it, then restores it. */
    <T> T suspended(Connection connection, PendingStore.SqlWork<T> work) throws SQLException {
        if (!suspend(connection)) {
            return work.run(connection);
        }
        try {
            return work.run(connection);
        } finally {
            restore(connection);
        }
    }

    /**
     * Switches the check off for the session where the server has it, keeping its value for {@link #restore}; false
     * where there is nothing to switch.
     */
    boolean suspend(Connection connection) throws SQLException {
        if (!present(connection)) {
            return false;
        }
        try (Statement statement = connection.createStatement()) {
            statement.execute(SUSPEND);
        }
        return true;
    }

    /** Gives the session back the value {@link #suspend} found. */
    void restore(Connection connection) throws SQLException {
        if (present(connection)) {
            try (Statement statement = connection.createStatement()) {
                statement.execute(RESTORE);
            }
        }
    }

    boolean present(Connection connection) throws SQLException {
        Boolean known = present;
        if (known == null) {
            known = ask(connection);
            present = known;
        }
        return known;
    }

    /*
     * A failed SELECT does not end a MariaDB or MySQL transaction, so asking on a business connection is harmless.
     * Asking for the variable opens no InnoDB read view.
     */
    private static boolean ask(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery("SELECT @@innodb_snapshot_isolation")) {
            rows.next();
        } catch (SQLException unknownVariable) {
            return false; // MySQL, or a MariaDB release before the variable (error 1193)
        }
        try (Statement statement = connection.createStatement()) {
            statement.execute(OFF_FOR + "SELECT 1");
        } catch (SQLException e) {
            throw new IllegalStateException("the projection datasource's MariaDB has innodb_snapshot_isolation but "
                    + "refuses to switch it off for a statement (" + e.getMessage() + "); business transactions at "
                    + "REPEATABLE READ would then fail at commit with error 1020 whenever the engine changed a mark "
                    + "meanwhile: set transaction-isolation=TRANSACTION_READ_COMMITTED on the datasource, or "
                    + "innodb_snapshot_isolation=OFF on the server (docs/design.md D28)", e);
        }
        return true;
    }
}
