package dev.projections.store;

import dev.projections.testsupport.TestDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.BeforeAll;

/**
 * The pending-table contract on a {@code projection_pending} a DBA partitioned by list of projection, with the script
 * docs/install.md gives (a row address is unique only within one partition, docs/pitfalls.md #74): two projections of
 * the contract in partitions of their own, the rest in the default one.
 */
class PostgresPartitionedPendingQueueTest extends PendingQueueContract {

    private static final String SCHEMA = "pending_store_partitioned";

    /** The script docs/install.md tells a DBA to run, from the repository's docs (the module's directory is the cwd). */
    static final Path SCRIPT = Path.of("..", "docs", "install", "partition-projection-pending-postgresql.sql");

    private static String url;

    @BeforeAll
    static void createPartitionedSchema() throws Exception {
        url = LiquibaseSchema.freshPostgresSchema(SCHEMA);
        try (Connection connection = connectTo()) {
            partition(connection);
        }
    }

    /** Runs the DBA's script in one transaction, and gives {@code order-search} and {@code customer-stats} partitions. */
    static void partition(Connection connection) throws Exception {
        connection.setAutoCommit(false);
        try (Statement statement = connection.createStatement()) {
            statement.execute(Files.readString(SCRIPT));
            statement.execute("CREATE TABLE projection_pending_order_search PARTITION OF projection_pending "
                    + "FOR VALUES IN ('order-search') WITH (fillfactor = 80)");
            statement.execute("CREATE TABLE projection_pending_customer_stats PARTITION OF projection_pending "
                    + "FOR VALUES IN ('customer-stats') WITH (fillfactor = 80)");
        }
        connection.commit();
        connection.setAutoCommit(true);
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
        return PostgresPendingQueueTest.backendPid(connection);
    }

    @Override
    protected boolean isWaitingForALock(Connection observer, long sessionId) throws SQLException {
        return PostgresPendingQueueTest.waitsForALock(observer, sessionId);
    }

    @org.junit.jupiter.api.Test
    void projectionSchemaValidateAcceptsTheQueuePartitionedByProjectionAndStillNamesAMissingIndex() throws Exception {
        SchemaCheck check = SchemaCheck.ofShippedDdl(getClass().getClassLoader());
        try (Connection connection = connectTo()) {
            org.assertj.core.api.Assertions.assertThat(check.missing(connection)).isEmpty();
            connection.setAutoCommit(false);
            try (Statement statement = connection.createStatement()) {
                statement.execute("DROP INDEX projection_pending_due_idx");
                org.assertj.core.api.Assertions.assertThat(check.missing(connection))
                        .containsExactly("index projection_pending_due_idx");
            } finally {
                connection.rollback();
            }
        }
    }
}
