package dev.projections.store;

import dev.projections.testsupport.TestDatabase;
import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.MarkKey;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The rebuild-run contract on PostgreSQL, in a schema of its own. */
class PostgresRebuildRunsTest extends RebuildRunsContract {

    private static String url;

    @BeforeAll
    static void createSchema() throws Exception {
        url = LiquibaseSchema.freshPostgresSchema("rebuild_store_contract");
    }

    @Override
    protected Connection connect() throws SQLException {
        TestDatabase database = TestDatabase.get();
        return DriverManager.getConnection(url, database.user(), database.password());
    }

    @Override
    protected Tables pendingStore() {
        return Tables.forProduct("PostgreSQL");
    }

    /*
     * A cancelled run's purge locks its marks with SKIP LOCKED in id order while it holds the run's row and the marks it
     * locked before: on PostgreSQL, which can make such a lock wait all the same (docs/pitfalls.md #92), its
     * transaction waits for a lock only briefly, as a claim's does.
     */
    @Test
    void aCancelledRunsPurgeWaitsForALockOnlyBriefly() throws Exception {
        Tables tables = pendingStore();
        try (Connection connection = connect()) {
            String runId = tables.rebuildRuns().start(connection, ORDERS, "brief", T0);
            tables.queue().upsert(connection, List.of(new MarkKey(ORDERS, "brief", "1")), PendingQueue.REBUILD, T0);
            assertThat(tables.rebuildRuns().cancel(connection, runId, "alice", T0.plusSeconds(1))).isTrue();
            connection.setAutoCommit(false);

            assertThat(tables.rebuildMarks().purgeCancelled(connection, runId, T0.plusSeconds(2), 10)).isEqualTo(1);
            try (Statement statement = connection.createStatement();
                 ResultSet rows = statement.executeQuery("SHOW lock_timeout")) {
                rows.next();
                assertThat(rows.getString(1)).isEqualTo(PostgresClaimStatements.LOCK_WAIT_BOUND);
            }
            connection.rollback();
        }
    }
}
