package dev.projections.store;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import org.junit.jupiter.api.BeforeAll;

/** The pending-table contract on H2 2.2 (the demo's embedded database), in memory. */
class H2PendingQueueTest extends PendingQueueContract {

    private static String url;

    @BeforeAll
    static void createSchema() throws Exception {
        url = LiquibaseSchema.freshH2("store");
    }

    @Override
    protected Tables store() {
        return Tables.forProduct("H2");
    }

    @Override
    protected boolean claimsPastHeldRows() {
        return false;
    }

    @Override
    protected Connection connect() throws SQLException {
        return DriverManager.getConnection(url, "sa", "");
    }

    @Override
    protected long sessionId(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery("SELECT SESSION_ID()")) {
            rows.next();
            return rows.getLong(1);
        }
    }

    /*
     * H2 shows no lock wait for a statement that waits on another transaction's uncommitted insert of the same
     * key (BLOCKER_ID stays null, the state RUNNING), so a statement that has been executing for 100 ms counts
     * as waiting: the statements of these tests take well under a millisecond otherwise.
     */
    @Override
    protected boolean isWaitingForALock(Connection observer, long sessionId) throws SQLException {
        try (PreparedStatement statement = observer.prepareStatement("""
                SELECT BLOCKER_ID, EXECUTING_STATEMENT_START FROM INFORMATION_SCHEMA.SESSIONS
                 WHERE SESSION_ID = ? AND EXECUTING_STATEMENT IS NOT NULL
                """)) {
            statement.setLong(1, sessionId);
            try (ResultSet rows = statement.executeQuery()) {
                if (!rows.next()) {
                    return false;
                }
                OffsetDateTime since = rows.getObject(2, OffsetDateTime.class);
                return rows.getObject(1) != null
                        || since != null && Duration.between(since.toInstant(), Instant.now()).toMillis() >= 100;
            }
        }
    }

}
