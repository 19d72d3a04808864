package dev.projections.store;

import dev.projections.testsupport.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.BeforeAll;

/**
 * The pending-table contract on PostgreSQL ({@link TestDatabase}: {@code PROJECTION_TEST_JDBC_URL}, else
 * Testcontainers, else an embedded server), in a schema of its own that is dropped and recreated per run.
 */
class PostgresPendingStoreTest extends PendingStoreContract {

    private static final String SCHEMA = "pending_store_contract";

    private static String url;

    @BeforeAll
    static void createSchema() throws Exception {
        url = LiquibaseSchema.freshPostgresSchema(SCHEMA);
    }

    private static Connection connectTo() throws SQLException {
        TestDatabase database = TestDatabase.get();
        return DriverManager.getConnection(url, database.user(), database.password());
    }

    @Override
    protected Tables store() {
        return Tables.forProduct("PostgreSQL");
    }

    @Override
    protected Connection connect() throws SQLException {
        return connectTo();
    }

    @Override
    protected long sessionId(Connection connection) throws SQLException {
        return backendPid(connection);
    }

    @Override
    protected boolean isWaitingForALock(Connection observer, long sessionId) throws SQLException {
        return waitsForALock(observer, sessionId);
    }

    /** PostgreSQL's id of the session behind {@code connection}. */
    static long backendPid(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery("SELECT pg_backend_pid()")) {
            rows.next();
            return rows.getLong(1);
        }
    }

    /** Whether backend {@code sessionId} waits for a lock, as {@code pg_locks} says through {@code observer}. */
    static boolean waitsForALock(Connection observer, long sessionId) throws SQLException {
        try (PreparedStatement statement = observer.prepareStatement(
                "SELECT COUNT(*) FROM pg_locks WHERE pid = ? AND NOT granted")) {
            statement.setLong(1, sessionId);
            try (ResultSet rows = statement.executeQuery()) {
                rows.next();
                return rows.getLong(1) > 0;
            }
        }
    }

    @org.junit.jupiter.api.Test
    void aClaimTransactionCommitsWithoutWaitingForTheDiskAndOnlyItDoes() throws Exception {
        try (Connection connection = connectTo()) {
            connection.setAutoCommit(false);
            store().queue().commitWithoutWaitingForDisk(connection);
            org.assertj.core.api.Assertions.assertThat(setting(connection)).isEqualTo("off");
            connection.commit();
            org.assertj.core.api.Assertions.assertThat(setting(connection)).as("the next transaction").isEqualTo("on");
            connection.rollback();
        }
    }

    private static String setting(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery("SHOW synchronous_commit")) {
            rows.next();
            return rows.getString(1);
        }
    }
}
