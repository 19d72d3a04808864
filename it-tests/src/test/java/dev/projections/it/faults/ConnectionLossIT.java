package dev.projections.it.faults;

import static dev.projections.it.support.TestSql.count;
import static dev.projections.it.support.TestSql.execute;
import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.it.support.Await;
import dev.projections.it.support.Deployments;
import dev.projections.testsupport.TestDatabase;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
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
 * The server's database connections are killed ({@code pg_terminate_backend}) while changes are committed and
 * refreshed: the engine recovers by itself (the datasource validates and replaces broken connections), and every
 * committed order ends with a correct read-model row and no mark left.
 */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class ConnectionLossIT {

    @ArquillianResource
    Deployer deployer;

    @Deployment(name = "engine", managed = false, testable = false)
    static EnterpriseArchive engine() {
        return ShrinkWrap.create(EnterpriseArchive.class, "connection-loss.ear").merge(Deployments.ear(Map.of(
                "projection.sweep-interval", "1s", "projection.retry-delay", "1s", "projection.max-retry-delay", "2s",
                "projection.lease-time", "10s")));
    }

    @Test
    void killedConnectionsDuringLoadLoseNoMarkAndTheEngineRecoversByItself() throws Exception {
        deployer.deploy("engine");
        try {
            // this test asserts on the whole pending table: marks other test classes left (failing ids, projections
            // not deployed here) go first
            execute("DELETE FROM projection_pending");
            long ordersBefore = count("SELECT COALESCE(MAX(id), 0) FROM orders");
            HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            AtomicBoolean loading = new AtomicBoolean(true);
            AtomicInteger committed = new AtomicInteger();
            CompletableFuture<Void> load = CompletableFuture.runAsync(() -> {
                while (loading.get()) {
                    try {
                        HttpResponse<String> response = http.send(HttpRequest.newBuilder(
                                        URI.create("http://127.0.0.1:8080/demo/api/load?orders=20&updates=10"))
                                .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
                        if (response.statusCode() == 200) {
                            committed.incrementAndGet();
                        }
                    } catch (Exception e) {
                        return;
                    }
                }
            });
            int kills = 0;
            for (int round = 0; round < 5; round++) {
                int before = committed.get();
                Await.until("more commits", Duration.ofSeconds(60), () -> committed.get() >= before + 3);
                kills += terminateServerConnections();
            }
            loading.set(false);
            load.join();
            assertThat(kills).as("connections killed").isPositive();

            Await.until("every mark refreshed after the connection losses", Duration.ofMinutes(2),
                    () -> count("SELECT COUNT(*) FROM projection_pending") == 0);
            assertThat(count("""
                    SELECT COUNT(*) FROM orders o LEFT JOIN order_search s ON s.order_id = o.id
                     WHERE o.id > %d AND (s.order_id IS NULL OR s.status <> o.status OR s.source_version <> o.version)"""
                    .formatted(ordersBefore))).as("orders whose read-model row is missing or stale").isZero();
        } finally {
            deployer.undeploy("engine");
        }
    }

    /** Kills every other session of the test database: the server's pooled connections. */
    private static int terminateServerConnections() throws Exception {
        try (Connection connection = TestDatabase.get().connect(); Statement statement = connection.createStatement();
             ResultSet killed = statement.executeQuery("""
                     SELECT COUNT(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                      WHERE datname = current_database() AND pid <> pg_backend_pid()) k""")) {
            killed.next();
            return killed.getInt(1);
        }
    }


}
