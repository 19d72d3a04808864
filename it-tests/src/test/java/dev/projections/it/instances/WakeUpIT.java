package dev.projections.it.instances;

import dev.projections.it.support.Await;
import dev.projections.it.support.Deployments;
import dev.projections.it.support.PendingRows;
import dev.projections.it.support.TestSql;
import dev.projections.testsupport.TestDatabase;
import java.sql.Connection;
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
}
