package dev.projections.store;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * MariaDB's {@code innodb_snapshot_isolation} (docs/design.md D28, docs/pitfalls.md #73), switched off for the
 * product's own statements, one statement at a time ({@code SET STATEMENT innodb_snapshot_isolation = OFF FOR …}):
 * nothing of the session changes, so nothing has to be restored, whatever happens to the transaction.
 * <p>
 * From 11.6.2 the check is ON by default: a transaction that read anything, then locks or writes a row another
 * transaction changed since, fails with ER_CHECKREAD (1020) and rolls back whole. At REPEATABLE READ — a business
 * transaction writing its marks at commit, a console action in its container transaction — "since" is the
 * transaction's first read; at READ COMMITTED, the engine's level, it is the start of the statement, so a claim whose
 * subquery reads {@code projection_control} before it locks marks failed when another worker claimed one meanwhile.
 * Our statements decide on the latest committed row, never on a snapshot, so the check protects nothing of ours; the
 * application's own statements keep the setting it chose. MySQL, and MariaDB releases before the variable, have no
 * such check and get the statements unchanged.
 */
final class SnapshotChecks {

    private static final String OFF_FOR = "SET STATEMENT innodb_snapshot_isolation = OFF FOR ";

    /** Whether a server has the variable, by JDBC URL: asked once, on the first connection that needs to know. */
    private static final Map<String, Boolean> PRESENT = new ConcurrentHashMap<>();

    private SnapshotChecks() {
    }

    /** {@code sql}, run without the check where {@code connection}'s server has it. */
    static String statement(Connection connection, String sql) throws SQLException {
        return present(connection) && !sql.stripLeading().toUpperCase(Locale.ROOT).startsWith("SET ") ? OFF_FOR + sql
                : sql;
    }

    /**
     * {@code connection} for work in a transaction its caller owns: every statement prepared or run through the
     * returned connection goes without the check. {@code connection} itself where the server has none.
     */
    static Connection withoutChecks(Connection connection) throws SQLException {
        if (!present(connection)) {
            return connection;
        }
        return SqlRewriting.proxy(connection, new Rewriting(connection, connection));
    }

    /** Whether {@code connection}'s server is a MariaDB with the variable; at deployment, that it can go without it. */
    static boolean present(Connection connection) throws SQLException {
        if (!"MariaDB".equals(connection.getMetaData().getDatabaseProductName())) {
            return false;
        }
        String server = connection.getMetaData().getURL();
        Boolean known = PRESENT.get(server);
        if (known == null) {
            known = ask(connection);
            PRESENT.put(server, known);
        }
        return known;
    }

    /*
     * A failed SELECT does not end a MariaDB transaction, so asking on a business connection is harmless. Asking for
     * the variable opens no InnoDB read view.
     */
    private static boolean ask(Connection connection) {
        try (Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery("SELECT @@innodb_snapshot_isolation")) {
            rows.next();
        } catch (SQLException unknownVariable) {
            return false; // a MariaDB release before the variable (error 1193)
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

    /** Prefixes the SQL of every statement made through a connection, and of those run by its plain statements. */
    private static final class Rewriting extends SqlRewriting {

        Rewriting(Object target, Connection connection) {
            super(target, connection);
        }

        @Override
        String rewrite(String sql) throws SQLException {
            return statement(connection(), sql);
        }

        @Override
        SqlRewriting forStatement(Statement statement) {
            return new Rewriting(statement, connection());
        }
    }
}
