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
public class PostgresPendingQueueTest extends PendingQueueContract {

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
    public static long backendPid(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery("SELECT pg_backend_pid()")) {
            rows.next();
            return rows.getLong(1);
        }
    }

    /** Whether backend {@code sessionId} waits for a lock, as {@code pg_locks} says through {@code observer}. */
    public static boolean waitsForALock(Connection observer, long sessionId) throws SQLException {
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
    void aClaimTransactionCommitsWithoutWaitingForTheDiskAndWaitsForALockBrieflyAndOnlyItDoes() throws Exception {
        mark(at(0), ORDER_1);
        try (Connection connection = connectTo()) {
            connection.setAutoCommit(false);
            org.assertj.core.api.Assertions.assertThat(store().queue().claimKeys(connection, java.util.List.of(ORDER_1),
                    java.util.List.of(ORDERS), at(1), LEASE, java.util.UUID.randomUUID().toString())).hasSize(1);
            org.assertj.core.api.Assertions.assertThat(setting(connection)).as("after the claim").isEqualTo("off");
            org.assertj.core.api.Assertions.assertThat(setting(connection, "lock_timeout"))
                    .as("a claim waits for a lock briefly (pitfalls #92)").isEqualTo(PostgresClaimStatements.LOCK_WAIT_BOUND);
            connection.commit();
            org.assertj.core.api.Assertions.assertThat(setting(connection)).as("the next transaction").isEqualTo("on");
            org.assertj.core.api.Assertions.assertThat(setting(connection, "lock_timeout")).as("the next transaction")
                    .isEqualTo("0");
            org.assertj.core.api.Assertions.assertThat(store().queue().claimKeys(connection, java.util.List.of(ORDER_2),
                    java.util.List.of(ORDERS), at(1), LEASE, java.util.UUID.randomUUID().toString())).isEmpty();
            org.assertj.core.api.Assertions.assertThat(setting(connection)).as("after a claim that found nothing")
                    .isEqualTo("off");
            connection.rollback();
        }
    }

    /*
     * A lone key's take tells its transaction how to commit in its own one-time filter (docs/design.md D63), one key or
     * several, also when it took nothing: no statement more; untold, the transaction commits as the database says.
     */
    @org.junit.jupiter.api.Test
    void aTakeToldHowToCommitTellsItsTransactionItselfAndAnUntoldOneLeavesItAsTheDatabaseSays() throws Exception {
        mark(at(0), ORDER_1, ORDER_2);
        try (Connection connection = connectTo()) {
            connection.setAutoCommit(false);
            org.assertj.core.api.Assertions.assertThat(new ClaimsInRefresh(store().queue()).claim(connection,
                    java.util.List.of(ORDER_1), at(1), LEASE, "t").taken()).isTrue();
            org.assertj.core.api.Assertions.assertThat(setting(connection)).as("untold").isEqualTo("on");
            org.assertj.core.api.Assertions.assertThat(setting(connection, "lock_timeout"))
                    .isEqualTo(PostgresClaimStatements.LOCK_WAIT_BOUND);
            connection.rollback();
            org.assertj.core.api.Assertions.assertThat(told("off").claim(connection, java.util.List.of(ORDER_1), at(1),
                    LEASE, "t").marks()).hasSize(1);
            org.assertj.core.api.Assertions.assertThat(setting(connection)).as("one key, told off").isEqualTo("off");
            connection.rollback();
            org.assertj.core.api.Assertions.assertThat(told("local").claim(connection, java.util.List.of(ORDER_1, ORDER_2),
                    at(1), LEASE, "t").marks()).hasSize(2);
            org.assertj.core.api.Assertions.assertThat(setting(connection)).as("two keys, told local").isEqualTo("local");
            connection.rollback();
            org.assertj.core.api.Assertions.assertThat(told("off").claim(connection, java.util.List.of(ORDER_3), at(1),
                    LEASE, "t").marks()).as("nothing to take").isEmpty();
            org.assertj.core.api.Assertions.assertThat(setting(connection)).as("told all the same").isEqualTo("off");
            connection.rollback();
        }
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> PostgresClaimStatements.take(1, "off'; DROP TABLE x; --"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    /** What lets a lone ack be one statement: the claim returns the address of the row as it claimed it. */
    @org.junit.jupiter.api.Test
    void aClaimReturnsTheAddressOfTheRowItClaimed() throws Exception {
        mark(at(0), ORDER_1);
        ClaimedMark claimed = claimOne(ORDER_1, at(1), java.util.UUID.randomUUID().toString());
        try (Connection connection = connectTo();
             PreparedStatement select = connection.prepareStatement("""
                     SELECT tableoid::bigint || ' ' || ctid::text FROM projection_pending
                      WHERE projection = ? AND tenant_id = ? AND entity_id = ?""")) {
            select.setString(1, ORDER_1.projection());
            select.setString(2, ORDER_1.tenantId());
            select.setString(3, ORDER_1.entityId());
            try (ResultSet rows = select.executeQuery()) {
                rows.next();
                org.assertj.core.api.Assertions.assertThat(claimed.address()).isEqualTo(rows.getString(1));
            }
        }
    }

    /*
     * The lone ack's first statement goes by the claim's address alone (with its generation and token): given a mark
     * whose key is another's, it still deletes the claimed row, where the ack by key would have marked that other key.
     * An ack never gets such a mark; this only shows which statement did the work.
     */
    @org.junit.jupiter.api.Test
    void aLoneAckDeletesTheClaimedRowByItsAddressInOneStatement() throws Exception {
        mark(at(0), ORDER_1);
        ClaimedMark claimed = claimOne(ORDER_1, at(1), java.util.UUID.randomUUID().toString());
        ClaimedMark elsewhere = new ClaimedMark(ORDER_2, claimed.generation(), claimed.token(), claimed.claimedAt(),
                claimed.leaseUntil(), claimed.attempts(), claimed.priority(), claimed.address());

        org.assertj.core.api.Assertions.assertThat(ack(elsewhere, at(2))).isEqualTo(AckOutcome.SUCCESS);
        org.assertj.core.api.Assertions.assertThat(row(ORDER_1)).as("deleted by address").isNull();
        org.assertj.core.api.Assertions.assertThat(row(ORDER_2)).as("never looked up by key").isNull();
    }

    /** Claims in a refresh's transaction whose transactions are told to commit with {@code synchronousCommit}. */
    private ClaimsInRefresh told(String synchronousCommit) {
        return new ClaimsInRefresh(store().queue(), projections -> synchronousCommit);
    }

    private static String setting(Connection connection) throws SQLException {
        return setting(connection, "synchronous_commit");
    }

    private static String setting(Connection connection, String name) throws SQLException {
        try (Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery("SHOW " + name)) {
            rows.next();
            return rows.getString(1);
        }
    }
}
