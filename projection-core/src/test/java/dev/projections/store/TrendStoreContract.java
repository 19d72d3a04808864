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
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The contract of the console's tables (docs/contract.md §12), run against every database: trend minutes that add up
 * across instances and restarts, instance reports rewritten in place, and the holder written beside each claim.
 */
abstract class TrendStoreContract {

    static final Instant T0 = Instant.parse("2030-01-01T10:00:00Z");
    static final String ORDERS = "order-search";

    protected abstract Connection connect() throws SQLException;

    protected abstract String product();

    private Tables store;

    @BeforeEach
    void emptyTables() throws SQLException {
        store = Tables.forProduct(product(), "node-a");
        try (Connection connection = connect(); Statement statement = connection.createStatement()) {
            statement.executeUpdate("DELETE FROM projection_trend");
            statement.executeUpdate("DELETE FROM projection_node");
            statement.executeUpdate("DELETE FROM projection_instance");
            statement.executeUpdate("DELETE FROM projection_pending");
            statement.executeUpdate("DELETE FROM projection_audit");
            statement.executeUpdate("DELETE FROM projection_rebuild_partition");
            statement.executeUpdate("DELETE FROM projection_rebuild");
        }
    }

    @Test
    void aMinuteAddsUpTheInstancesRefreshesAndShowsTheLargestBacklogAndTheWorstP99() throws Exception {
        try (Connection connection = connect()) {
            store.trends().add(connection, "node-a", List.of(new TrendSample(ORDERS, T0, 5L, 2L, 1L, 10, 1, 2_000L)));
            store.trends().add(connection, "node-b", List.of(new TrendSample(ORDERS, T0, 7L, 3L, 1L, 3, 0, 9_000L)));

            assertThat(store.trends().read(connection, ORDERS, T0, T0.plusSeconds(60)))
                    .containsExactly(new TrendPoint(T0, 7L, 3L, 1L, 13, 1, 9_000L, 2));
        }
    }

    @Test
    void aMinuteReportedAgainAfterARestartAddsItsRefreshesAndKeepsWhatTheNewReportLacks() throws Exception {
        try (Connection connection = connect()) {
            store.trends().add(connection, "node-a", List.of(new TrendSample(ORDERS, T0, 5L, 2L, 1L, 10, 1, 2_000L)));
            // the new process saw four refreshes of that minute, none slower, and counted no backlog for it
            store.trends().add(connection, "node-a", List.of(new TrendSample(ORDERS, T0, null, null, null, 4, 2, 1_500L)));

            assertThat(store.trends().read(connection, ORDERS, T0, T0.plusSeconds(60)))
                    .containsExactly(new TrendPoint(T0, 5L, 2L, 1L, 14, 3, 2_000L, 1));
            store.trends().add(connection, "node-a", List.of(new TrendSample(ORDERS, T0, 6L, 0L, 0L, 0, 0, 8_000L)));
            assertThat(store.trends().read(connection, ORDERS, T0, T0.plusSeconds(60)))
                    .containsExactly(new TrendPoint(T0, 6L, 0L, 0L, 14, 3, 8_000L, 1));
        }
    }

    @Test
    void aWindowReadsItsProjectionsMinutesOldestFirstAndPruningForgetsTheOlderOnes() throws Exception {
        try (Connection connection = connect()) {
            for (int minute = 0; minute < 5; minute++) {
                store.trends().add(connection, "node-a", List.of(
                        new TrendSample(ORDERS, T0.plusSeconds(60L * minute), (long) minute, 0L, 0L, minute, 0, null),
                        new TrendSample("customer-stats", T0.plusSeconds(60L * minute), 100L, 0L, 0L, 1, 0, null)));
            }

            assertThat(store.trends().read(connection, ORDERS, T0.plusSeconds(60), T0.plusSeconds(240)))
                    .extracting(TrendPoint::minute, TrendPoint::refreshes)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple(T0.plusSeconds(60), 1L),
                            org.assertj.core.groups.Tuple.tuple(T0.plusSeconds(120), 2L),
                            org.assertj.core.groups.Tuple.tuple(T0.plusSeconds(180), 3L));
            assertThat(store.trends().prune(connection, T0.plusSeconds(180))).as("3 minutes of 2 projections").isEqualTo(6);
            assertThat(store.trends().prune(connection, T0.plusSeconds(180))).as("nothing older left").isZero();
            assertThat(store.trends().read(connection, ORDERS, T0, T0.plusSeconds(600))).extracting(TrendPoint::minute)
                    .containsExactly(T0.plusSeconds(180), T0.plusSeconds(240));
        }
    }

    @Test
    void anInstancesReportIsRewrittenInPlaceAndForgottenOnceItIsOlderThanTheRetention() throws Exception {
        try (Connection connection = connect()) {
            store.nodes().report(connection, new NodeReport("node-a", T0, T0, 4, 1, 100, 600, Duration.ofMillis(-3), true));
            store.nodes().report(connection, new NodeReport("node-a", T0, T0.plusSeconds(30), 4, 3, 250, 900,
                    Duration.ofMillis(12), true));
            store.nodes().report(connection, new NodeReport("node-b", T0, T0.plusSeconds(5), 2, 0, 0, 0, Duration.ZERO, false));

            assertThat(store.nodes().list(connection)).containsExactly(
                    new NodeReport("node-a", T0, T0.plusSeconds(30), 4, 3, 250, 900, Duration.ofMillis(12), true),
                    new NodeReport("node-b", T0, T0.plusSeconds(5), 2, 0, 0, 0, Duration.ZERO, false));
            assertThat(store.nodes().prune(connection, T0.plusSeconds(10))).isEqualTo(1);
            assertThat(store.nodes().list(connection)).extracting(NodeReport::instanceId).containsExactly("node-a");
        }
    }

    @Test
    void theLiveDeploymentsAreThoseThatBeatSinceTheGivenInstantEachWithItsInstancesRole() throws Exception {
        try (Connection connection = connect()) {
            store.instances().heartbeat(connection, "web-1", List.of("orders", "invoices"), T0.plusSeconds(30));
            store.nodes().report(connection, new NodeReport("web-1", T0, T0.plusSeconds(30), 0, 0, 0, 0, Duration.ZERO, false));
            store.instances().heartbeat(connection, "worker-1", List.of("orders"), T0.plusSeconds(10));
            store.nodes().report(connection, new NodeReport("worker-1", T0, T0.plusSeconds(10), 4, 0, 0, 0, Duration.ZERO, true));
            // an instance of a release before projection_node beats and reports nothing of its role: it processes
            store.instances().heartbeat(connection, "old-release", List.of("invoices"), T0.plusSeconds(20));

            assertThat(store.nodes().liveDeployments(connection, T0.plusSeconds(10))).containsExactlyInAnyOrder(
                    new LiveDeployment("web-1", "orders", false), new LiveDeployment("web-1", "invoices", false),
                    new LiveDeployment("worker-1", "orders", true), new LiveDeployment("old-release", "invoices", true));
            assertThat(store.nodes().liveDeployments(connection, T0.plusSeconds(11)))
                    .as("worker-1's heartbeat is older").extracting(LiveDeployment::instanceId)
                    .containsOnly("web-1", "old-release");
        }
    }

    @Test
    void theProjectionsAnInstanceDeploysAreThoseItReportedSinceTheGivenInstant() throws Exception {
        try (Connection connection = connect()) {
            store.instances().heartbeat(connection, "node-a", List.of(ORDERS, "customer-stats"), T0);
            store.instances().heartbeat(connection, "node-b", List.of(ORDERS), T0.minusSeconds(600));

            assertThat(store.instances().deployed(connection, T0.minusSeconds(90)))
                    .containsOnlyKeys("node-a").extractingByKey("node-a").isEqualTo(new java.util.TreeSet<>(
                            Set.of("customer-stats", ORDERS)));
        }
    }

    @Test
    void aClaimWritesTheInstanceThatHoldsItBesideTheLeaseAndGivingTheClaimBackClearsIt() throws Exception {
        MarkKey key = new MarkKey(ORDERS, "", "1");
        try (Connection connection = connect()) {
            store.queue().upsert(connection, List.of(key), PendingQueue.LIVE, T0);
            assertThat(store.queue().claimDue(connection, List.of(ORDERS), T0.plusSeconds(1), Duration.ofSeconds(30),
                    "token", 10)).hasSize(1);
            assertThat(holder(connection)).isEqualTo("node-a");

            assertThat(store.claims().releaseToken(connection, "token", List.of(key), T0.plusSeconds(2))).isEqualTo(1);
            assertThat(holder(connection)).as("nobody holds it now").isNull();
        }
    }

    @Test
    void aP99ArrivesForAMinuteWithoutOneAndAMinuteWithoutOneKeepsItsP99() throws Exception {
        try (Connection connection = connect()) {
            store.trends().add(connection, "node-a", List.of(new TrendSample(ORDERS, T0, 1L, 0L, 0L, 0, 0, null)));
            store.trends().add(connection, "node-a", List.of(new TrendSample(ORDERS, T0, null, null, null, 2, 0, 700L)));
            store.trends().add(connection, "node-a", List.of(new TrendSample(ORDERS, T0, null, null, null, 0, 0, null)));

            assertThat(store.trends().read(connection, ORDERS, T0, T0.plusSeconds(60)))
                    .containsExactly(new TrendPoint(T0, 1L, 0L, 0L, 2, 0, 700L, 1));
        }
    }

    @Test
    void aPruneDeletesAnHourAtMostFromTheOldestMinuteOnAndReadingAllProjectionsGroupsThem() throws Exception {
        try (Connection connection = connect()) {
            for (int hour = 0; hour < 3; hour++) {
                store.trends().add(connection, "node-a", List.of(
                        new TrendSample(ORDERS, T0.plusSeconds(3600L * hour), 1L, 0L, 0L, 1, 0, null),
                        new TrendSample("customer-stats", T0.plusSeconds(3600L * hour), 1L, 0L, 0L, 1, 0, null)));
            }
            Instant later = T0.plusSeconds(3 * 3600);
            assertThat(store.trends().prune(connection, later)).as("the first hour's two rows").isEqualTo(2);
            assertThat(store.trends().prune(connection, later)).isEqualTo(2);
            assertThat(store.trends().readAll(connection, T0, later)).containsOnlyKeys("customer-stats", ORDERS)
                    .allSatisfy((projection, points) -> assertThat(points).extracting(TrendPoint::minute)
                            .containsExactly(T0.plusSeconds(7200)));
        }
    }

    @Test
    void aMinutesLagTextsAreReadPerProjectionAndForAllAndARestartedProcessJoinsItsHalf() throws Exception {
        try (Connection connection = connect()) {
            store.trends().add(connection, "node-a", List.of(
                    new TrendSample(ORDERS, T0, 1L, 0L, 0L, 2, 0, 900L, "m:40 10:2"),
                    new TrendSample("customer-stats", T0, 1L, 0L, 0L, 1, 0, 900L, null)));
            store.trends().add(connection, "node-b", List.of(new TrendSample(ORDERS, T0, null, null, null, 1, 0, 900L,
                    "m:90 13:1")));
            // node-a restarted within the minute: its new process's half joins the row; a report without lag keeps it
            store.trends().add(connection, "node-a", List.of(new TrendSample(ORDERS, T0, null, null, null, 1, 0, 900L,
                    "m:50 11:1")));
            store.trends().add(connection, "node-a", List.of(new TrendSample(ORDERS, T0, null, null, null, 0, 0, null,
                    null)));
            store.trends().add(connection, "node-a", List.of(new TrendSample(ORDERS, T0.plusSeconds(60), null, null,
                    null, 1, 0, 900L, "m:70 12:1")));

            assertThat(store.trends().lags(connection, ORDERS, T0, T0.plusSeconds(60)))
                    .containsExactlyInAnyOrder("m:40 10:2 m:50 11:1", "m:90 13:1");
            assertThat(store.trends().lags(connection, "customer-stats", T0, T0.plusSeconds(120))).isEmpty();
            assertThat(store.trends().lags(connection, T0, T0.plusSeconds(120))).containsOnlyKeys(ORDERS)
                    .extractingByKey(ORDERS).asList().hasSize(3);
            assertThat(store.trends().read(connection, ORDERS, T0, T0.plusSeconds(60)))
                    .as("the other columns add up as before").extracting(TrendPoint::refreshes).containsExactly(4L);
        }
    }

    @Test
    void aRowRewrittenUntilItsLagTextIsLongKeepsWhatItHasRatherThanFailTheWrite() throws Exception {
        String half = "m:9 " + "1:1 ".repeat(1_999).trim(); // 8,000 characters
        try (Connection connection = connect()) {
            for (int restart = 0; restart < 4; restart++) {
                store.trends().add(connection, "node-a", List.of(new TrendSample(ORDERS, T0, null, null, null, 1, 0,
                        900L, half)));
            }
            assertThat(store.trends().lags(connection, ORDERS, T0, T0.plusSeconds(60))).singleElement()
                    .asString().hasSize(half.length() * 2 + 1);
            assertThat(store.trends().read(connection, ORDERS, T0, T0.plusSeconds(60)))
                    .extracting(TrendPoint::refreshes).containsExactly(4L);
        }
    }

    @Test
    void auditEntriesOlderThanTheRetentionGoOldestFirstABatchAtATime() throws Exception {
        dev.projections.inspect.AuditLog audit = new dev.projections.inspect.AuditLog();
        try (Connection connection = connect()) {
            for (int daysAgo : new int[] {3, 10, 9, 0, 8, 7, 1}) {
                audit.record(connection, dev.projections.inspect.AuditEntry.of(T0.minus(Duration.ofDays(daysAgo)),
                        "alice", "pause", ORDERS, null, null, daysAgo + " days ago"));
            }
            Instant before = T0.minus(Duration.ofDays(2));
            assertThat(audit.prune(connection, before, 3)).isEqualTo(3);
            assertThat(details(connection)).as("the oldest three went")
                    .containsExactlyInAnyOrder("3 days ago", "0 days ago", "7 days ago", "1 days ago");
            assertThat(audit.prune(connection, before, 3)).isEqualTo(2);
            assertThat(audit.prune(connection, before, 3)).isZero();
            assertThat(details(connection)).containsExactlyInAnyOrder("0 days ago", "1 days ago");
        }
    }

    @Test
    void endedRunsOlderThanTheRetentionGoWithTheirPartitionsButNeverARunningOneNorTheLatestOfAProjectionAndTenant()
            throws Exception {
        try (Connection connection = connect()) {
            run(connection, "old-1", ORDERS, "", "FINISHED", 40, 39);
            run(connection, "old-2", ORDERS, "", "CANCELLED", 35, 34);
            run(connection, "latest-of-orders", ORDERS, "", "FINISHED", 33, 32);
            run(connection, "only-of-acme", ORDERS, "acme", "FAILED", 50, 49);
            run(connection, "old-stats", "customer-stats", "", "FINISHED", 40, 38);
            run(connection, "running-stats", "customer-stats", "", "RUNNING", 1, null);
            run(connection, "recent-stats", "customer-stats", "", "FINISHED", 3, 2);
            partition(connection, "old-1", 0);
            partition(connection, "old-1", 1);
            partition(connection, "latest-of-orders", 0);
            Instant before = T0.minus(Duration.ofDays(30));

            assertThat(store.endedRuns().prune(connection, before, 2)).as("the two that ended first").isEqualTo(2);
            assertThat(runIds(connection)).doesNotContain("old-1", "old-stats");
            assertThat(store.endedRuns().prune(connection, before, 2)).isEqualTo(1);
            assertThat(store.endedRuns().prune(connection, before, 2)).isZero();
            assertThat(runIds(connection)).containsExactlyInAnyOrder("latest-of-orders", "only-of-acme",
                    "running-stats", "recent-stats");
            try (Statement statement = connection.createStatement();
                 ResultSet rows = statement.executeQuery("SELECT run_id FROM projection_rebuild_partition")) {
                assertThat(rows.next()).isTrue();
                assertThat(rows.getString(1)).as("the pruned run's partitions went with it").isEqualTo("latest-of-orders");
                assertThat(rows.next()).isFalse();
            }
        }
    }

    private void run(Connection connection, String id, String projection, String tenant, String state, int startedDaysAgo,
                     Integer finishedDaysAgo) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement("""
                INSERT INTO projection_rebuild (run_id, projection, tenant_id, state, marked, exhausted, started_at,
                                                finished_at, running_projection, running_tenant)
                VALUES (?, ?, ?, ?, 0, TRUE, ?, ?, ?, ?)""")) {
            insert.setString(1, id);
            insert.setString(2, projection);
            insert.setString(3, tenant);
            insert.setString(4, state);
            insert.setObject(5, store.dialect().timestamp(T0.minus(Duration.ofDays(startedDaysAgo))));
            insert.setObject(6, finishedDaysAgo == null ? null
                    : store.dialect().timestamp(T0.minus(Duration.ofDays(finishedDaysAgo))));
            insert.setString(7, "RUNNING".equals(state) ? projection : null);
            insert.setString(8, "RUNNING".equals(state) ? tenant : null);
            insert.executeUpdate();
        }
    }

    private static void partition(Connection connection, String runId, int number) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement(
                "INSERT INTO projection_rebuild_partition (run_id, partition_no) VALUES (?, ?)")) {
            insert.setString(1, runId);
            insert.setInt(2, number);
            insert.executeUpdate();
        }
    }

    private static List<String> runIds(Connection connection) throws SQLException {
        List<String> ids = new java.util.ArrayList<>();
        try (Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery("SELECT run_id FROM projection_rebuild")) {
            while (rows.next()) {
                ids.add(rows.getString(1));
            }
        }
        return ids;
    }

    private static List<String> details(Connection connection) throws SQLException {
        List<String> details = new java.util.ArrayList<>();
        try (Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery("SELECT detail FROM projection_audit")) {
            while (rows.next()) {
                details.add(rows.getString(1));
            }
        }
        return details;
    }

    private static String holder(Connection connection) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(
                "SELECT claimed_by FROM projection_pending WHERE entity_id = '1'");
             ResultSet rows = select.executeQuery()) {
            assertThat(rows.next()).isTrue();
            return rows.getString(1);
        }
    }
}
