package dev.projections.store;

import java.sql.Connection;
import java.sql.SQLException;
import org.junit.jupiter.api.BeforeAll;

/**
 * The pending-table contract on MariaDB ({@code PROJECTION_TEST_MARIADB_URL}), in a database of its own created by
 * the changelog. Connections keep the server's default isolation, REPEATABLE READ, as an application's would; the
 * contract runs the engine's transactions through {@link Tables#beginEngineTransaction}.
 */
class MariaDbPendingQueueTest extends PendingQueueContract {

    private static String url;

    @BeforeAll
    static void createDatabase() throws Exception {
        url = LiquibaseSchema.freshMariaDb("pending_store");
    }

    @Override
    protected Tables store() {
        return Tables.forProduct("MariaDB");
    }

    @Override
    protected boolean claimsPastHeldRows() {
        return false; // its claim locks only its candidates (docs/pitfalls.md #94): beside a claimer of them, short
    }

    @Override
    protected Connection connect() throws SQLException {
        return LiquibaseSchema.mariaDb().connect(url);
    }

    private final MariaDbSessions sessions = new MariaDbSessions();

    @Override
    protected long sessionId(Connection connection) throws SQLException {
        return MariaDbSessions.connectionId(connection);
    }

    @Override
    protected boolean isWaitingForALock(Connection observer, long sessionId) throws SQLException {
        return sessions.isWaitingForALock(observer, sessionId);
    }
}
