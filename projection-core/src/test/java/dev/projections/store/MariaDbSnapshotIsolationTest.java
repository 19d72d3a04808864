package dev.projections.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.MarkKey;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * MariaDB 11.6.2 and later run with {@code innodb_snapshot_isolation=ON} (docs/design.md D28, docs/pitfalls.md #73):
 * a REPEATABLE READ transaction that read, then writes a row someone changed since, fails with error 1020 and rolls
 * back whole. Each test forces one interleaving: a business transaction reads (its read view opens), the engine or
 * another business transaction changes the key's mark and commits, then the business transaction writes its mark at
 * commit. The business session has the check on whatever the server's default, as the current releases have it.
 */
class MariaDbSnapshotIsolationTest {

    private static final Instant T0 = Instant.parse("2030-01-01T10:00:00Z");
    private static final String ORDERS = "order-search";
    private static final MarkKey HOT = new MarkKey(ORDERS, "", "42");

    private static String url;
    private Tables store;

    @BeforeAll
    static void createDatabase() throws Exception {
        url = LiquibaseSchema.freshMariaDb("snapshot_isolation");
    }

    @BeforeEach
    void emptyTheTables() throws SQLException {
        store = Tables.forProduct("MariaDB");
        try (Connection c = connect(); Statement st = c.createStatement()) {
            st.execute("DELETE FROM projection_pending");
            st.execute("DELETE FROM projection_rebuild_partition");
            st.execute("DELETE FROM projection_rebuild");
        }
    }

    @Test
    void aBusinessTransactionThatReadBeforeADrainerClaimedItsKeyStillCommitsItsMark() throws Exception {
        mark(T0);
        try (Connection business = businessTransactionThatHasRead()) {
            List<ClaimedMark> claimed = engine(c -> store.queue().claimDue(c, List.of(ORDERS), T0, Duration.ofMinutes(2),
                    UUID.randomUUID().toString(), 10));
            assertThat(claimed).hasSize(1);
            String claimedGeneration = claimed.get(0).generation();

            store.queue().upsert(business, List.of(HOT), PendingQueue.LIVE, T0.plusSeconds(1));
            business.commit();

            assertThat(generation()).as("the business mark's new generation").isNotEqualTo(claimedGeneration);
            assertThat(claimToken()).as("the claim untouched").isNotNull();
        }
    }

    @Test
    void aBusinessTransactionThatReadBeforeADrainerAckedItsKeyStillCommitsItsMark() throws Exception {
        mark(T0);
        try (Connection business = businessTransactionThatHasRead()) {
            engine(c -> {
                List<ClaimedMark> claimed = store.queue().claimDue(c, List.of(ORDERS), T0, Duration.ofMinutes(2),
                        UUID.randomUUID().toString(), 10);
                return store.queue().ackAll(c, claimed, T0);
            });
            assertThat(generation()).as("acked: the mark deleted").isNull();

            store.queue().upsert(business, List.of(HOT), PendingQueue.LIVE, T0.plusSeconds(1));
            business.commit();

            assertThat(generation()).as("marked again by the business commit").isNotNull();
        }
    }

    @Test
    void aBusinessTransactionThatReadBeforeAnotherBusinessTransactionMarkedTheSameKeyStillCommitsItsMark() throws Exception {
        mark(T0);
        try (Connection business = businessTransactionThatHasRead()) {
            try (Connection other = businessTransactionThatHasRead()) {
                store.queue().upsert(other, List.of(HOT), PendingQueue.LIVE, T0.plusSeconds(1));
                other.commit();
            }
            String otherGeneration = generation();

            store.queue().upsert(business, List.of(HOT), PendingQueue.LIVE, T0.plusSeconds(2));
            business.commit();

            assertThat(generation()).isNotEqualTo(otherGeneration);
            assertThat(markCount()).as("three marks of one key").isEqualTo(3);
        }
    }

    @Test
    void aConsoleActionInTheCallersTransactionThatReadBeforeABusinessCommitChangedTheMarkStillCommits() throws Exception {
        mark(T0);
        engine(c -> {
            ClaimedMark claimed = store.queue().claimDue(c, List.of(ORDERS), T0, Duration.ofMinutes(2), "worker", 1).get(0);
            store.claims().recordFailure(c, claimed, "boom", T0, T0.plusSeconds(60));
            return null;
        });
        try (Connection caller = businessTransactionThatHasRead()) { // the console's container transaction
            try (Connection other = businessTransactionThatHasRead()) {
                store.queue().upsert(other, List.of(HOT), PendingQueue.LIVE, T0.plusSeconds(1));
                other.commit();
            }

            int retried = store.actions().retryFailed(store.outsideSnapshotChecks().run(caller), ORDERS, T0.plusSeconds(2));
            caller.commit();

            assertThat(retried).isEqualTo(1);
            assertThat(sessionCheck(caller)).as("the caller's session untouched").isEqualTo(1);
        }
    }

    /** An application's transaction: REPEATABLE READ, the check on, and a read that opened its read view. */
    private Connection businessTransactionThatHasRead() throws SQLException {
        Connection connection = connect();
        try (Statement statement = connection.createStatement()) {
            statement.execute("SET SESSION innodb_snapshot_isolation = ON");
        }
        connection.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
        connection.setAutoCommit(false);
        try (Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery("SELECT COUNT(*) FROM projection_control")) {
            rows.next();
        }
        return connection;
    }

    private static int sessionCheck(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery("SELECT @@SESSION.innodb_snapshot_isolation")) {
            rows.next();
            return rows.getInt(1);
        }
    }

    private void mark(Instant at) throws Exception {
        engine(c -> {
            store.queue().upsert(c, List.of(HOT), PendingQueue.LIVE, at);
            return null;
        });
    }

    private <T> T engine(Tables.SqlWork<T> work) throws SQLException {
        try (Connection connection = connect()) {
            connection.setAutoCommit(false);
            store.beginEngineTransaction(connection);
            T result = work.run(connection);
            connection.commit();
            return result;
        }
    }

    private String generation() throws SQLException {
        return column("generation");
    }

    private String claimToken() throws SQLException {
        return column("claim_token");
    }

    private long markCount() throws SQLException {
        return Long.parseLong(column("mark_count"));
    }

    private String column(String name) throws SQLException {
        try (Connection connection = connect(); PreparedStatement select = connection.prepareStatement(
                "SELECT " + name + " FROM projection_pending WHERE projection = ? AND tenant_id = ? AND entity_id = ?")) {
            select.setString(1, HOT.projection());
            select.setString(2, HOT.tenantId());
            select.setString(3, HOT.entityId());
            try (ResultSet rows = select.executeQuery()) {
                return rows.next() ? rows.getString(1) : null;
            }
        }
    }

    private static Connection connect() throws SQLException {
        return LiquibaseSchema.mariaDb().connect(url);
    }
}
