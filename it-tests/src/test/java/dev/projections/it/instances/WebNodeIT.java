package dev.projections.it.instances;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.it.support.Await;
import dev.projections.it.support.Deployments;
import dev.projections.it.support.TestSql;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.OffsetDateTime;
import java.util.Map;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A web node in the server (docs/design.md D54): the EAR deployed with {@code projection.processing=false} writes the
 * marks of its commits and refreshes none of them, its sweep reports it as a web node, and its health says that no
 * instance processes the marks — until one reports (here: a row as another instance's sweep writes it).
 */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class WebNodeIT {

    private static final URI HEALTH = URI.create("http://127.0.0.1:8080/projections/health");
    private static final URI ORDERS = URI.create("http://127.0.0.1:8080/demo/api/orders");

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @Deployment(testable = false)
    static EnterpriseArchive deployment() {
        return Deployments.ear(Map.of("projection.processing", "false", "projection.sweep-interval", "1s"));
    }

    @Test
    void aWebNodesCommitsAreMarkedAndLeftForAProcessingNodeAndItsHealthSaysWhenNoneIsLive() throws Exception {
        long before = TestSql.count("SELECT COUNT(*) FROM projection_pending WHERE projection = 'order-search'");

        HttpResponse<String> created = http.send(HttpRequest.newBuilder(ORDERS)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(
                        "{\"customer\":\"web-node\",\"lines\":[{\"sku\":\"a\",\"quantity\":1,\"price\":2.5}]}"))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(created.statusCode()).as(created.body()).isBetween(200, 201);
        // the commit's hand-off ran on the committing thread before the answer; a sweep (every second) that began
        // a second after it has reported this instance: a drainer the hand-off or a sweep had started would have
        // refreshed the order by then
        OffsetDateTime sweptAfter = OffsetDateTime.now().plusSeconds(1);
        Await.until("a sweep that began after the commit reported this web node", () -> TestSql.count(
                "SELECT COUNT(*) FROM projection_node WHERE processing = FALSE AND last_seen > ?", sweptAfter) == 1);
        assertThat(TestSql.count("SELECT COUNT(*) FROM projection_pending WHERE projection = 'order-search'"))
                .as("the commit's marks, refreshed by nobody here").isGreaterThan(before);
        Await.until("its health says nothing refreshes the marks",
                () -> health().contains("deploys customer-stats, order-search: their marks are written"));
        assertThat(health()).contains("\"status\":\"UP\"").contains("\"processing\":false")
                .contains("\"liveProcessingNodes\":0");

        try {
            // another instance's sweep, as it writes what it deploys and its role
            TestSql.execute("""
                    INSERT INTO projection_instance (instance_id, projection, last_seen)
                    VALUES ('worker-elsewhere', 'order-search', CURRENT_TIMESTAMP + INTERVAL '1 hour'),
                           ('worker-elsewhere', 'customer-stats', CURRENT_TIMESTAMP + INTERVAL '1 hour')""");
            TestSql.execute("""
                    INSERT INTO projection_node (instance_id, started_at, last_seen, workers, drainers_busy, claims_held,
                                                 refreshes_per_minute, clock_skew_millis, processing)
                    VALUES ('worker-elsewhere', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP + INTERVAL '1 hour', 4, 0, 0, 0, 0,
                            TRUE)""");
            Await.until("a processing instance counted", () -> health().contains("\"liveProcessingNodes\":1"));
            assertThat(health()).doesNotContain("their marks are written");
        } finally {
            TestSql.execute("DELETE FROM projection_instance WHERE instance_id = 'worker-elsewhere'");
            TestSql.execute("DELETE FROM projection_node WHERE instance_id = 'worker-elsewhere'");
        }
    }

    private String health() {
        try {
            return http.send(HttpRequest.newBuilder(HEALTH).GET().build(), HttpResponse.BodyHandlers.ofString()).body();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
