package dev.projections.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.testsupport.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The engine's queue statements on a {@code projection_pending} partitioned by projection (docs/install.md), with
 * 300,000 marks: the claim reads each projection's own partition in its claim index's order, never a sort of the due
 * set or a scan of another partition; the claim's update and the ack go by row address (a TID scan), the claim's in the
 * candidate's partition only.
 * Plans, not times.
 */
class PostgresPartitionedQueuePlanTest {

    private static final String SCHEMA = "partitioned_plan";
    private static final Instant NOW = Instant.parse("2030-01-01T12:00:00Z");
    private static String url;

    @BeforeAll
    static void partitionedMarks() throws Exception {
        url = LiquibaseSchema.freshPostgresSchema(SCHEMA);
        try (Connection connection = connect()) {
            PostgresPartitionedPendingQueueTest.partition(connection);
            try (Statement statement = connection.createStatement()) {
                statement.execute("""
                        INSERT INTO projection_pending (projection, tenant_id, entity_id, generation, priority,
                            available_at, first_marked_at)
                        SELECT (ARRAY['order-search', 'customer-stats', 'other'])[1 + i % 3], '', lpad(i::text, 8, '0'),
                               'g', CASE WHEN i % 10 = 0 THEN 0 ELSE 1 END,
                               TIMESTAMPTZ '2030-01-01 10:00:00+00' + (300000 - i) * INTERVAL '1 millisecond',
                               TIMESTAMPTZ '2030-01-01 10:00:00+00'
                          FROM generate_series(1, 300000) AS i""");
                statement.execute("ANALYZE projection_pending");
            }
        }
    }

    @AfterAll
    static void dropThem() throws Exception {
        try (Connection connection = TestDatabase.get().connect(); Statement statement = connection.createStatement()) {
            statement.execute("DROP SCHEMA IF EXISTS " + SCHEMA + " CASCADE");
        }
    }

    @Test
    void aClaimReadsOnlyItsProjectionsPartitionInClaimIndexOrder() throws Exception {
        // the partition is chosen at run time (the projection comes from the outer unnest), so the plan is read as it
        // ran, in a transaction rolled back: the other partitions' scans are never executed
        try (Connection connection = connect()) {
            connection.setAutoCommit(false);
            String plan = PostgresClaimPlanTest.plan(connection, "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) "
                    + new PostgresPendingQueue("plan-test").claimStatement(PostgresClaimStatements.CLAIM_DUE), select -> {
                PostgresClaimPlanTest.claimParameters(select);
                select.setArray(4, connection.createArrayOf("text", List.of("order-search").toArray()));
                select.setInt(5, PendingQueue.LIVE);
                select.setObject(6, NOW.atOffset(ZoneOffset.UTC));
                select.setObject(7, NOW.atOffset(ZoneOffset.UTC));
                select.setInt(8, 100);
                select.setInt(9, 100);
            });
            connection.rollback();

            assertThat(plan).as(plan).doesNotContain("Seq Scan on projection_pending").doesNotContain("Bitmap");
            String perProjection = plan.substring(plan.indexOf("Nested Loop"));
            assertThat(perProjection).as("no sort below the per-projection read:%n%s", plan).doesNotContain("Sort Method");
            for (String line : plan.lines().filter(line -> line.contains("Scan") && line.contains(" on projection_pending_")).toList()) {
                assertThat(line).as("a partition read in the claim index's order, or claimed by address:%n%s", plan)
                        .containsPattern("Index Scan using .*_projection_priority_available|Tid Scan on");
                assertThat(line.contains("on projection_pending_order_search") || line.contains("never executed"))
                        .as("only order-search's partition read:%n%s", plan).isTrue();
            }
            assertThat(plan).as(plan).contains("Tid Scan on projection_pending_order_search");
        }
    }

    /**
     * A claim of handed keys (one statement text for every batch size, docs/pitfalls.md #97) reads only the partition of
     * its keys' projection, by key, in the plan for its values and in the generic plan it gets once prepared on the
     * server, where the partitions are pruned when it runs.
     */
    @Test
    void aClaimOfHandedKeysReadsOnlyTheirProjectionsPartitionByKey() throws Exception {
        try (Connection connection = connect()) {
            connection.setAutoCommit(false);
            String explain = "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)";
            String claim = new PostgresPendingQueue("plan-test").claimStatement(PostgresClaimStatements.CLAIM_KEYS);
            String custom = PostgresClaimPlanTest.plan(connection, explain + " " + claim, select -> {
                PostgresClaimPlanTest.claimParameters(select);
                select.setArray(4, connection.createArrayOf("text", new String[] {"order-search", "order-search"}));
                select.setArray(5, connection.createArrayOf("text", new String[] {"", ""}));
                select.setArray(6, connection.createArrayOf("text", new String[] {"00000003", "00000006"}));
                select.setArray(7, connection.createArrayOf("text", new String[] {"order-search"}));
                select.setObject(8, NOW.atOffset(ZoneOffset.UTC));
                select.setObject(9, NOW.atOffset(ZoneOffset.UTC));
            });
            connection.rollback();
            String generic = PostgresClaimPlanTest.genericPlan(connection, explain, claim, "'token'",
                    "'2030-01-01 12:02:00+00'", "'node'", "'{order-search,order-search}'", "'{\"\",\"\"}'",
                    "'{00000003,00000006}'", "'{order-search}'", "'2030-01-01 12:00:00+00'", "'2030-01-01 12:00:00+00'");
            connection.rollback();

            assertThat(generic).as("a plan with its parameters unknown:%n%s", generic).containsPattern("\\$\\d");
            for (String plan : List.of(custom, generic)) {
                assertThat(plan).as(plan).doesNotContain("Seq Scan on projection_pending")
                        .contains("Tid Scan on projection_pending_order_search");
                for (String line : plan.lines().filter(line -> line.contains("Scan") && line.contains(" on projection_pending_")).toList()) {
                    assertThat(line.contains("on projection_pending_order_search") || line.contains("never executed"))
                            .as("only order-search's partition read:%n%s", plan).isTrue();
                }
            }
        }
    }

    @Test
    void anAckDeletesByAddressWithinOnePartition() throws Exception {
        try (Connection connection = connect()) {
            long partition = PostgresClaimPlanTest.tableOid(connection, "projection_pending_order_search");
            String[] tids = {"(0,1)", "(0,2)"};
            String delete = PostgresClaimPlanTest.plan(connection, "EXPLAIN " + PostgresAckStatements.DELETE_BY_ADDRESS,
                    select -> {
                        select.setLong(1, partition);
                        select.setArray(2, connection.createArrayOf("text", tids));
                    });
            String lone = PostgresClaimPlanTest.plan(connection, "EXPLAIN " + PostgresAckStatements.DELETE_CLAIMED_ROW,
                    select -> {
                        select.setLong(1, partition);
                        select.setString(2, "(0,1)");
                        select.setString(3, "g");
                        select.setString(4, "token");
                    });

            for (String plan : List.of(delete, lone)) {
                assertThat(plan).as(plan).contains("Tid Scan").doesNotContain("Seq Scan").doesNotContain("Index Scan");
            }
        }
    }

    private static Connection connect() throws SQLException {
        TestDatabase database = TestDatabase.get();
        return DriverManager.getConnection(url, database.user(), database.password());
    }
}
