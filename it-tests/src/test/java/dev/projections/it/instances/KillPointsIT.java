package dev.projections.it.instances;

import static dev.projections.it.instances.FaultSetup.count;
import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.it.support.Await;
import dev.projections.it.support.ServerProcess;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The only server, killed with SIGKILL at chosen points of a refresh, then restarted (docs/contract.md §4): the mark
 * survives each crash and is refreshed once its lease (10 s) has lapsed; the read models end equal to the write
 * tables. The refresh and its ack share one transaction, so the points are: claimed, refresh not begun
 * ({@code refresh-start}); read model written, nothing committed ({@code mid-refresh}); the ack statement run
 * too, the transaction committing ({@code before-commit}).
 */
class KillPointsIT {

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @Test
    void killedAtEachPointOfARefreshTheRestartedServerLosesNothing() throws Exception {
        String url = FaultSetup.freshDatabase("projection_kill_points");
        Path probe = FaultSetup.probeDir("kill-points-probe");
        long changes = 0;
        try (ServerProcess solo = new ServerProcess("solo", 300, FaultSetup.ear(),
                FaultSetup.serverProperties(url, probe, 0))) {
            solo.start();
            List<String> points = List.of("refresh-start", "mid-refresh", "before-commit");
            for (String point : points) {
                assertThat(post(solo, "/demo/api/load?orders=3&updates=2", "tenant-a")).isEqualTo(200);
                changes += 5;
                Path gate = Files.createFile(probe.resolve("gate-" + point));
                String id = "kp-" + point;
                assertThat(post(solo, "/demo/api/probe/" + id, "tenant-b")).isEqualTo(200);
                changes++;
                Await.until("the refresh of " + id + " at " + point, Duration.ofSeconds(30),
                        () -> Files.exists(probe.resolve("reached-" + point + "-" + id)));
                solo.kill();
                Files.delete(gate);
                assertThat(count(url, "SELECT COUNT(*) FROM projection_pending WHERE entity_id = '" + id + "'"))
                        .as("the mark of %s after a crash at %s", id, point).isEqualTo(1);
                assertThat(count(url, "SELECT COUNT(*) FROM probe_model WHERE id = '" + id + "'"))
                        .as("nothing of the killed refresh committed").isZero();

                solo.start();
                Await.until("every mark refreshed after the restart", Duration.ofSeconds(90),
                        () -> count(url, FaultSetup.PENDING) == 0);
                assertThat(count(url, "SELECT COUNT(*) FROM probe_model WHERE id = '" + id + "' AND value = 1"))
                        .isEqualTo(1);
            }
            assertThat(count(url, FaultSetup.ORDER_SEARCH_WRONG)).as("order_search rows unlike the write tables").isZero();
            assertThat(count(url, FaultSetup.CUSTOMER_STATS_WRONG)).as("customer_stats rows unlike the write tables")
                    .isZero();
            assertThat(count(url, FaultSetup.PROBE_WRONG)).as("probe rows unlike their source").isZero();
            assertThat(count(url, FaultSetup.OVERLAPS)).as("overlapping refreshes of one key").isZero();
            Figures.report("one server killed at " + String.join(", ", points) + ": " + changes + " changes, "
                    + points.size() + " SIGKILLs and restarts, each killed refresh redone after its lease, 0 lost");
        }
    }

    private int post(ServerProcess server, String path, String tenant) throws Exception {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(server.url(path)))
                .header("X-Tenant", tenant).POST(HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.ofString());
        return response.statusCode();
    }
}
