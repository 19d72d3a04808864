package dev.projections.it.engine;

import static dev.projections.it.support.TestSql.count;
import static dev.projections.it.support.TestSql.execute;
import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.it.support.Await;
import dev.projections.it.support.Deployments;
import dev.projections.it.support.PendingRows;
import dev.projections.testsupport.TestDatabase;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
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
 * Marks that outlive a deployment: left by a crash before it started, or claimed when it was undeployed. The
 * lease is long (2 min) and every wait here is far shorter, so a key that had to wait for its lease to lapse
 * would fail the test.
 */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class RestartIT {

    private static final Duration WELL_WITHIN_THE_LEASE = Duration.ofSeconds(60);

    @ArquillianResource
    Deployer deployer;

    @Deployment(name = "engine", managed = false, testable = false)
    static EnterpriseArchive engine() {
        return ShrinkWrap.create(EnterpriseArchive.class, "restart.ear").merge(Deployments.ear(Map.of(
                "projection.sweep-interval", "1s", "projection.lease-time", "2m", "projection.workers", "2",
                "projection.batch-size", "20")));
    }

    @Test
    void marksLeftBeforeStartUpAreRefreshedByTheSweep() throws Exception {
        deployer.deploy("engine"); // a first run creates the schema; then the instance is gone
        deployer.undeploy("engine");
        forgetOtherTestsMarks();
        insertOrphan("customer-stats", "880001");
        insertOrphan("order-search", "880002");
        deployer.deploy("engine");
        try {
            Await.until("the orphaned marks refreshed", WELL_WITHIN_THE_LEASE,
                    () -> count("SELECT COUNT(*) FROM projection_pending WHERE entity_id IN ('880001', '880002')") == 0);
        } finally {
            deployer.undeploy("engine");
        }
    }

    @Test
    void anUndeployDuringLoadReleasesUnstartedClaimsAndTheRedeployRefreshesThemAtOnce() throws Exception {
        deployer.deploy("engine");
        forgetOtherTestsMarks();
        long ordersBefore = count("SELECT COALESCE(MAX(id), 0) FROM orders");
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        AtomicBoolean loading = new AtomicBoolean(true);
        CompletableFuture<Void> load = CompletableFuture.runAsync(() -> {
            while (loading.get()) {
                try {
                    http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:8080/demo/api/load?orders=50&updates=20"))
                            .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.discarding());
                } catch (Exception undeployed) {
                    return;
                }
            }
        });
        Await.until("marks waiting", () -> count("SELECT COUNT(*) FROM projection_pending") > 100);
        deployer.undeploy("engine");
        loading.set(false);
        load.join();

        assertThat(count("SELECT COUNT(*) FROM projection_pending WHERE claim_token IS NOT NULL"))
                .as("no claim outlives the undeploy").isZero();

        deployer.deploy("engine");
        try {
            Await.until("every mark refreshed after the redeploy", WELL_WITHIN_THE_LEASE,
                    () -> count("SELECT COUNT(*) FROM projection_pending") == 0);
            assertThat(count("""
                    SELECT COUNT(*) FROM orders o
                      LEFT JOIN order_search s ON s.order_id = o.id
                     WHERE o.id > %d
                       AND (s.order_id IS NULL OR s.status <> o.status OR s.source_version <> o.version)"""
                    .formatted(ordersBefore))).as("orders of this load whose order_search row differs").isZero();
        } finally {
            deployer.undeploy("engine");
        }
    }

    /** This class asserts on the whole pending table: marks other test classes left (failing ids) go first. */
    private static void forgetOtherTestsMarks() {
        execute("DELETE FROM projection_pending");
    }

    private static void insertOrphan(String projection, String id) throws Exception {
        try (Connection connection = TestDatabase.get().connect()) {
            PendingRows.insertDue(connection, projection, id);
        }
    }

}
