package dev.projections.it.instances;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.it.support.Await;
import dev.projections.it.support.Deployments;
import dev.projections.it.support.PendingRows;
import dev.projections.it.support.TestSql;
import dev.projections.testsupport.TestDatabase;
import dev.projections.store.Tables;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.time.Duration;
import java.util.Map;
import org.jboss.arquillian.container.test.api.Deployer;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A processing instance in the server takes a web node's marks between its sweeps (docs/design.md D54): the web node
 * is another instance's rows (its heartbeat and its report, as its sweep writes them), its commit a due mark no
 * hand-off announces here. The sweep runs every 60 s, so only the wake-up look can refresh it within the wait.
 */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class WakeUpIT {

    private static final Duration SWEEP_INTERVAL = Duration.ofSeconds(60);

    @ArquillianResource
    Deployer deployer;

    @Deployment(name = "processing", managed = false, testable = false)
    static EnterpriseArchive processing() {
        return ShrinkWrap.create(EnterpriseArchive.class, "processing.ear")
                .merge(Deployments.ear(Map.of("projection.sweep-interval", SWEEP_INTERVAL.toSeconds() + "s")));
    }

    @Test
    void aWebNodesMarkIsRefreshedBetweenTheProcessingInstancesSweeps() throws Exception {
        deployer.deploy("processing"); // the schema, which each class starts without
        deployer.undeploy("processing");
        TestSql.execute("DELETE FROM projection_node");
        // a web node that deploys order-search, live for the next hour
        TestSql.execute("""
                INSERT INTO projection_instance (instance_id, projection, last_seen)
                VALUES ('web-elsewhere', 'order-search', CURRENT_TIMESTAMP + INTERVAL '1' HOUR)""");
        TestSql.execute("""
                INSERT INTO projection_node (instance_id, started_at, last_seen, workers, drainers_busy, claims_held,
                                             refreshes_per_minute, clock_skew_millis, processing)
                VALUES ('web-elsewhere', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP + INTERVAL '1' HOUR, 0, 0, 0, 0, 0,
                        FALSE)""");
        deployer.deploy("processing");
        try {
            // its first sweep (a second after the start) has started its drainers, reported and counted the web
            // node; the next is a minute away
            Await.until("the first sweep reported this instance", () -> TestSql.count(
                    "SELECT COUNT(*) FROM projection_node WHERE processing = TRUE") == 1);
            try (Connection connection = TestDatabase.get().connect()) {
                // the mark of an order id no order has: its refresh deletes nothing and succeeds
                PendingRows.insertDue(connection, "order-search", "987654321");
            }

            Await.until("the mark refreshed well before the next sweep", SWEEP_INTERVAL.dividedBy(3), () -> TestSql.count(
                    "SELECT COUNT(*) FROM projection_pending WHERE entity_id = '987654321'") == 0);
        } finally {
            deployer.undeploy("processing");
        }
    }
    /**
     * What the fallback costs where the database has no signal: a look is the due check of {@link Tables#checks()},
     * timed here on this pass's database with 10,000 marks waiting for a retry an hour away (what a look must not
     * scan), and printed as the database time one processing instance spends per second at the default 100 ms.
     */
    @Test
    void aWakeUpLooksCostOnThisDatabaseIsMeasured() throws Exception {
        deployer.deploy("processing"); // the schema
        deployer.undeploy("processing");
        TestSql.execute("DELETE FROM projection_pending");
        try (Connection connection = TestDatabase.get().connect()) {
            String product = connection.getMetaData().getDatabaseProductName();
            connection.setAutoCommit(false);
            try (PreparedStatement insert = connection.prepareStatement("""
                    INSERT INTO projection_pending (projection, tenant_id, entity_id, generation, mark_count, priority,
                                                    attempts, available_at, first_marked_at)
                    VALUES ('order-search', '', ?, 'waiting-for-a-retry', 1, 0, 1, ?, ?)""")) {
                OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
                for (int i = 0; i < 10_000; i++) {
                    insert.setString(1, "retry-" + i);
                    insert.setObject(2, now.plusHours(1));
                    insert.setObject(3, now);
                    insert.addBatch();
                }
                insert.executeBatch();
            }
            connection.commit();
            connection.setAutoCommit(true);
            TestSql.analyze("projection_pending");

            Tables store = Tables.forProduct(product);
            List<String> projections = List.of("customer-stats", "order-search");
            List<Long> nanos = new ArrayList<>();
            boolean due = false;
            for (int i = 0; i < 2_200; i++) {
                long start = System.nanoTime();
                due |= store.checks().hasDue(connection, projections, Instant.now());
                if (i >= 200) { // the first ones warm the driver and the plan cache
                    nanos.add(System.nanoTime() - start);
                }
            }
            assertThat(due).as("nothing is due").isFalse();
            nanos.sort(null);
            double p50 = nanos.get(nanos.size() / 2) / 1e6;
            double p99 = nanos.get(nanos.size() * 99 / 100) / 1e6;
            Figures.report(String.format(java.util.Locale.ROOT, "a wake-up look's due check on %s with 10,000 marks "
                    + "not yet due, 2,000 timed from the client: p50 %.3f ms, p99 %.3f ms; at the default 100 ms, "
                    + "%.1f ms per second of one connection per processing instance", product, p50, p99, p50 * 10));
        } finally {
            TestSql.execute("DELETE FROM projection_pending");
        }
    }
}
