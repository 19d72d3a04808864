package dev.projections.it.rebuild;

import static dev.projections.it.support.TestSql.count;
import static dev.projections.it.support.TestSql.execute;
import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.it.support.Await;
import dev.projections.it.support.Deployments;
import dev.projections.it.support.Series;
import dev.projections.it.support.TestSql;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Map;
import java.util.UUID;
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
 * A rebuild run outlives its instance: undeployed mid-run, each of its two partitions resumes from its cursor, and
 * every id is marked once.
 */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class RebuildRestartIT {

    private static final long FIRST = 700_000_001L;
    private static final int SEEDED = 60_000;
    /* a timestamp literal both databases take (MariaDB refuses an ISO instant's 'T' and 'Z'); the store keeps UTC */
    private static final DateTimeFormatter UTC_LITERAL = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss");
    /** A tenant of its own, so the run lists only this test's orders, whatever other classes left. */
    private static final String TENANT = "rebuild-restart";

    @ArquillianResource
    Deployer deployer;

    @Deployment(name = "engine", managed = false, testable = false)
    static EnterpriseArchive engine() {
        return ShrinkWrap.create(EnterpriseArchive.class, "rebuild-restart.ear").merge(Deployments.ear(Map.of(
                "projection.sweep-interval", "1s", "projection.lease-time", "10s", "projection.batch-size", "100",
                "projection.rebuild-page-size", "1000")));
    }

    @Test
    void aRebuildInterruptedByAnUndeployResumesFromItsCursorAndEndsCorrect() throws Exception {
        deployer.deploy("engine"); // creates the schema
        deployer.undeploy("engine");
        seedOrders();
        long orders = count("SELECT COUNT(*) FROM orders WHERE tenant_id = '" + TENANT + "'");
        String runId = UUID.randomUUID().toString();
        // a run of two partitions, cut in the middle of the orders' ids, as rebuild(…, 2) would have started it
        String bound = String.valueOf(FIRST + SEEDED / 2);
        execute("""
                INSERT INTO projection_rebuild (run_id, projection, tenant_id, state, marked, exhausted, started_at,
                                                running_projection, running_tenant, partitions, partitions_left)
                VALUES ('%s', 'order-search', '%s', 'RUNNING', 0, FALSE, '%s', 'order-search', '%s', 2, 2)"""
                .formatted(runId, TENANT, LocalDateTime.now(ZoneOffset.UTC).format(UTC_LITERAL), TENANT));
        execute("""
                INSERT INTO projection_rebuild_partition (run_id, partition_no, range_after, range_up_to, cursor_id,
                                                          exhausted, marked, takeovers)
                VALUES ('%s', 0, NULL, '%s', NULL, FALSE, 0, 0), ('%s', 1, '%s', NULL, '%s', FALSE, 0, 0)"""
                .formatted(runId, bound, runId, bound, bound));

        deployer.deploy("engine");
        Await.until("the run to be under way", () -> count("SELECT marked FROM projection_rebuild WHERE run_id = '" + runId + "'") >= 1_000);
        deployer.undeploy("engine");
        long markedAtUndeploy = count("SELECT marked FROM projection_rebuild WHERE run_id = '" + runId + "'");
        assertThat(markedAtUndeploy).as("interrupted mid-run").isLessThan(orders);
        assertThat(count("SELECT COUNT(*) FROM projection_rebuild WHERE run_id = '" + runId + "' AND state = 'RUNNING'"))
                .isEqualTo(1);

        deployer.deploy("engine");
        try {
            Await.until("the run to finish after the redeploy", Duration.ofMinutes(5), () -> count(
                    "SELECT COUNT(*) FROM projection_rebuild WHERE run_id = '" + runId + "' AND state = 'FINISHED'") == 1);
            assertThat(count("SELECT marked FROM projection_rebuild WHERE run_id = '" + runId + "'"))
                    .as("each id marked once: resumed from the cursors, not from the start, and no partition overlaps").isEqualTo(orders);
            assertThat(count("""
                    SELECT COUNT(*) FROM orders o LEFT JOIN order_search s ON s.order_id = o.id
                     WHERE o.id >= %d AND (s.order_id IS NULL OR s.status <> o.status)""".formatted(FIRST))).isZero();
        } finally {
            deployer.undeploy("engine");
        }
    }

    private static void seedOrders() throws Exception {
        execute("INSERT INTO customer (id, tenant_id, name) SELECT %d + g, '%s', CONCAT('restart-customer-', g) FROM %s"
                .formatted(FIRST, TENANT, Series.upTo(99)));
        execute("""
                INSERT INTO orders (id, tenant_id, customer_id, status, version)
                SELECT %d + g, '%s', %d + (g %% 100), 'NEW', 0 FROM %s"""
                .formatted(FIRST, TENANT, FIRST, Series.upTo(SEEDED - 1)));
        TestSql.analyze("customer", "orders");
    }


}
