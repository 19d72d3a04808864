package dev.projections.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.MarkKey;
import dev.projections.testsupport.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What ends a claim without an ack — release, abandon, renew, a failure record, parking, a give-back untried — and the
 * missed ack's re-mark write one mark by its key and token. Here on 1,000,000 marks of one tenant in a queue last
 * analyzed while it was empty (docs/pitfalls.md #29: the statistics a table has when autovacuum is off). By key,
 * PostgreSQL planned them on the tenant's due index, whose range is the tenant's whole million (the acks' old trap);
 * so they find the row by the address the acks' lock returns, a TID scan, whatever the statistics say. Plans, not
 * times.
 */
class PostgresHeldClaimsPlanTest {

    private static final String SCHEMA = "held_claims_plan";
    private static String url;

    @BeforeAll
    static void aMillionMarksUnderTheStatisticsOfAnEmptyQueue() throws Exception {
        url = LiquibaseSchema.freshPostgresSchema(SCHEMA);
        try (Connection connection = connect(); Statement statement = connection.createStatement()) {
            statement.execute("ANALYZE projection_pending"); // empty: what the planner then believes
            statement.execute("""
                    INSERT INTO projection_pending (projection, tenant_id, entity_id, generation, priority,
                        available_at, first_marked_at, claim_token, claimed_until)
                    SELECT 'p0', '', lpad(i::text, 8, '0'), 'g', 0,
                           TIMESTAMPTZ '2030-01-01 10:00:00+00' + i * INTERVAL '1 millisecond',
                           TIMESTAMPTZ '2030-01-01 10:00:00+00', 't', TIMESTAMPTZ '2030-01-01 12:01:00+00'
                      FROM generate_series(1, 1000000) AS i""");
        }
    }

    @AfterAll
    static void dropTheMillion() throws Exception {
        try (Connection connection = TestDatabase.get().connect(); Statement statement = connection.createStatement()) {
            statement.execute("DROP SCHEMA IF EXISTS " + SCHEMA + " CASCADE");
        }
    }

    @Test
    void everyStatementThatEndsAClaimWithoutAnAckFindsItsRowByTheAddressItsLockReturned() throws Exception {
        Timestamp now = Timestamp.from(Instant.parse("2030-01-01T12:00:00Z"));
        // each statement: its values before the row and the token
        Map<String, Object[]> statements = Map.of(
                "release", new Object[] {HeldClaims.RELEASE},
                "renew", new Object[] {HeldClaims.RENEW, now},
                "record a failure", new Object[] {HeldClaims.RECORD_FAILURE, now, now, "boom", now},
                "park", new Object[] {HeldClaims.PARK, now, now, "boom", now, now},
                "give back untried", new Object[] {HeldClaims.GIVE_BACK_UNTRIED, now},
                "missed ack: re-mark and release", new Object[] {PendingQueue.REMARK_AND_RELEASE, "g2", now, now,
                        "this-instance"});
        MarkKey key = new MarkKey("p0", "", "00500000");
        try (Connection connection = connect()) {
            RowLocator rows = RowLocator.byAddress(Map.of(key, addressOf(connection, key)));
            for (Map.Entry<String, Object[]> statement : statements.entrySet()) {
                Object[] values = statement.getValue();
                String plan = plan(connection, "EXPLAIN " + values[0] + rows.where(), select -> {
                    int i = 1;
                    for (int v = 1; v < values.length; v++) {
                        select.setObject(i++, values[v]);
                    }
                    i = rows.bind(select, i, key);
                    select.setString(i, "t");
                });
                assertThat(plan).as("%s:%n%s", statement.getKey(), plan).contains("Tid Scan")
                        .doesNotContain("Seq Scan").doesNotContain("due_idx");
            }
        }
    }

    /** The lock that finds those addresses is the acks' own: an upsert, arbitrated by the primary key alone. */
    @Test
    void theLockThatFindsTheAddressesIsArbitratedByThePrimaryKey() throws Exception {
        try (Connection connection = connect()) {
            String plan = plan(connection, "EXPLAIN " + PostgresAckStatements.LOCK_IN_KEY_ORDER, select -> {
                Timestamp now = Timestamp.from(Instant.parse("2030-01-01T12:00:00Z"));
                select.setTimestamp(1, now);
                select.setTimestamp(2, now);
                select.setString(3, "this-instance");
                select.setArray(4, connection.createArrayOf("text", new String[] {"p0"}));
                select.setArray(5, connection.createArrayOf("text", new String[] {""}));
                select.setArray(6, connection.createArrayOf("text", new String[] {"00500000"}));
                select.setArray(7, connection.createArrayOf("text", new String[] {"fresh"}));
            });
            assertThat(plan).as(plan).contains("Conflict Arbiter Indexes: projection_pending_pk")
                    .doesNotContain("Seq Scan").doesNotContain("due_idx");
        }
    }

    private static String addressOf(Connection connection, MarkKey key) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(
                "SELECT tableoid::bigint || ' ' || ctid::text FROM projection_pending"
                        + " WHERE projection = ? AND tenant_id = ? AND entity_id = ?")) {
            Statements.bindKey(select, 1, key);
            try (var rows = select.executeQuery()) {
                assertThat(rows.next()).isTrue();
                return rows.getString(1);
            }
        }
    }

    private interface Binding {
        void bind(PreparedStatement statement) throws SQLException;
    }

    private static String plan(Connection connection, String explain, Binding binding) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(explain)) {
            binding.bind(select);
            StringBuilder plan = new StringBuilder();
            try (var rows = select.executeQuery()) {
                while (rows.next()) {
                    plan.append(rows.getString(1)).append('\n');
                }
            }
            return plan.toString();
        }
    }

    private static Connection connect() throws SQLException {
        TestDatabase database = TestDatabase.get();
        return DriverManager.getConnection(url, database.user(), database.password());
    }
}
