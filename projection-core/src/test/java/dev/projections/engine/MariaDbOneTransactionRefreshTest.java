package dev.projections.engine;

import dev.projections.config.Settings;
import dev.projections.store.LiquibaseSchema;
import dev.projections.store.MariaDbSessions;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;

/**
 * {@link OneTransactionRefreshContract} on MariaDB, in a database of its own; the engine's connections at READ
 * COMMITTED, as the server's engine transactions are (docs/design.md D28).
 */
class MariaDbOneTransactionRefreshTest extends OneTransactionRefreshContract {

    private static String url;
    private final MariaDbSessions sessions = new MariaDbSessions();

    @BeforeAll
    static void createDatabase() throws Exception {
        url = LiquibaseSchema.freshMariaDb("one_transaction_refresh");
    }

    @Override
    protected Connection connect() throws SQLException {
        Connection connection = LiquibaseSchema.mariaDb().connect(url);
        connection.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
        return connection;
    }

    @Override
    protected String product() {
        return "MariaDB";
    }

    @Override
    protected Map<String, String> oneTransactionOn() {
        return Map.of(Settings.ONE_TRANSACTION, "true"); // off by default on MariaDB (docs/pitfalls.md #96)
    }

    @Override
    protected boolean refreshGivesWayInALockCycle() {
        return false;
    }

    @Override
    protected long sessionId(Connection connection) throws SQLException {
        return MariaDbSessions.connectionId(connection);
    }

    @Override
    protected void kill(Connection observer, long sessionId) throws SQLException {
        try (Statement kill = observer.createStatement()) {
            kill.execute("KILL CONNECTION " + sessionId);
        }
        PostgresOneTransactionRefreshTest.awaitGone(observer,
                "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = ?", sessionId);
    }

    @Override
    protected boolean isWaitingForALock(Connection observer, long sessionId) throws SQLException {
        return sessions.isWaitingForALock(observer, sessionId);
    }
}
