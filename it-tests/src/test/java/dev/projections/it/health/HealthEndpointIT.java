package dev.projections.it.health;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.it.support.Await;
import dev.projections.it.support.Deployments;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import dev.projections.testsupport.TestDatabase;
import java.sql.Connection;
import java.sql.Statement;
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
 * {@code GET /projections/health}: up while the sweep runs, 503 once it is older than three intervals, up with no
 * sweep for an engine whose sweep is off.
 */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class HealthEndpointIT {

    private static final URI HEALTH = URI.create("http://127.0.0.1:8080/projections/health");

    @ArquillianResource
    Deployer deployer;

    @Deployment(name = "sweeping", managed = false, testable = false)
    static EnterpriseArchive sweeping() {
        return ShrinkWrap.create(EnterpriseArchive.class, "sweeping.ear")
                .merge(Deployments.ear(Map.of("projection.sweep-interval", "1s")));
    }

    @Deployment(name = "not-sweeping", managed = false, testable = false)
    static EnterpriseArchive notSweeping() {
        // the sweep never runs, as if its timer had died
        return ShrinkWrap.create(EnterpriseArchive.class, "not-sweeping.ear")
                .merge(Deployments.ear(Map.of("projection.sweep-interval", "1s", "projection.auto-refresh", "false")));
    }

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @Test
    void healthIsUpWithTheLastSweepWhileTheSweepRuns() throws Exception {
        deployer.deploy("sweeping");
        try {
            Await.until("a sweep recorded in the health body", () -> get().body().contains("\"lastSweep\":\"20"));
            HttpResponse<String> response = get();
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(
                    type -> assertThat(type).startsWith("application/json"));
            assertThat(response.body()).contains("\"status\":\"UP\"").contains("\"oldestDueAgeSeconds\":")
                    .contains("\"pausedProjections\":[");
        } finally {
            deployer.undeploy("sweeping");
        }
    }

    @Test
    void healthIsDownOnceTheLastSweepIsOlderThanThreeIntervalsAndUpAgainWhenItRuns() throws Exception {
        deployer.deploy("sweeping");
        try {
            // a sweep has ended: before the first, health is up for the start-up's grace and says no sweep ran
            Await.until("200 after a sweep", () -> {
                HttpResponse<String> response = get();
                return response.statusCode() == 200 && !response.body().contains("\"lastSweep\":null");
            });
            // the sweep's heartbeat waits for this lock (up to its 30 s timeout): no sweep ends, none starts
            try (Connection blocker = TestDatabase.get().connect(); Statement statement = blocker.createStatement()) {
                blocker.setAutoCommit(false);
                statement.execute("LOCK TABLE projection_instance IN ACCESS EXCLUSIVE MODE");
                Await.until("503 from a stale sweep", Duration.ofSeconds(25), () -> get().statusCode() == 503);
                assertThat(get().body()).contains("\"status\":\"DOWN\"")
                        .contains("the last sweep is older than 3 x projection.sweep-interval");
                blocker.rollback();
            }
            Await.until("200 once the sweep runs again", () -> get().statusCode() == 200);
        } finally {
            deployer.undeploy("sweeping");
        }
    }

    @Test
    void anEngineWhoseSweepIsOffIsNotHeldToASweep() throws Exception {
        deployer.deploy("not-sweeping");
        try {
            Await.until("200 with no sweep expected", () -> get().statusCode() == 200);
            Thread.sleep(4000); // past 3 x the 1 s interval: a sweep that should have run would be stale now
            HttpResponse<String> health = get();
            assertThat(health.statusCode()).as(health.body()).isEqualTo(200);
            assertThat(health.body()).contains("\"status\":\"UP\"");
        } finally {
            deployer.undeploy("not-sweeping");
        }
    }

    private HttpResponse<String> get() {
        try {
            return http.send(HttpRequest.newBuilder(HEALTH).GET().build(), HttpResponse.BodyHandlers.ofString());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
