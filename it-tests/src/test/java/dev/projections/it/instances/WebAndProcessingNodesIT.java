package dev.projections.it.instances;

import static dev.projections.it.instances.FaultSetup.count;
import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.it.support.Await;
import dev.projections.it.support.ServerProcess;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * A web node and a processing node on one PostgreSQL (docs/design.md D54, D55): node A with
 * {@code projection.processing=false} writes the marks of its commits; node B refreshes them because A's commit
 * signals it, not because it looks: the sweeps run every 60 s and B's wake-up looks are off. A write to A with
 * {@code X-Await-Refresh: 5s} is answered refreshed and its read-back on A shows it; A's refresh meter counts nothing.
 * Then PostgreSQL kills B's listening connection: B listens again and A's next commit is refreshed as fast. Prints the
 * wait a write to A takes beside the same write to B (a single node's own hand-off), measured alternating.
 */
class WebAndProcessingNodesIT {

    private static final Duration AWAIT = Duration.ofSeconds(5);

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();

    @Test
    void aWebNodesCommitsAreRefreshedByTheProcessingNodeItSignalsAlsoAfterItsListenerWasKilled() throws Exception {
        String url = FaultSetup.freshDatabase("projection_web_processing");
        Path ear = FaultSetup.ear();
        Path probe = FaultSetup.probeDir("web-processing-probe");
        // every instance judges the others' liveness by its own sweep interval (3 of them): the same on both
        Map<String, String> web = new HashMap<>(FaultSetup.serverProperties(url, probe, 0));
        web.put("projection.processing", "false");
        web.put("projection.sweep-interval", "60s");
        Map<String, String> processing = new HashMap<>(FaultSetup.serverProperties(url, probe, 0));
        processing.put("projection.sweep-interval", "60s");
        processing.put("projection.wake-up-interval", "0");
        try (ServerProcess a = new ServerProcess("web-a", 100, ear, web);
             ServerProcess b = new ServerProcess("processing-b", 200, ear, processing)) {
            b.start(); // first alone: it creates the schema, and its first sweep (a second later) reports it
            Await.until("B reported as a processing node", Duration.ofSeconds(60), () -> count(url,
                    "SELECT COUNT(*) FROM projection_node WHERE processing = TRUE") == 1);
            a.start();
            // A's first sweep, a second after its start, counts B; from then on A's commits signal it. The next
            // sweeps are a minute away: only a signal gets A's marks refreshed within the waits below
            Await.until("A counted B as processing", Duration.ofSeconds(60),
                    () -> bodyOrEmpty(a, "/projections/health").contains("\"liveProcessingNodes\":1"));
            Await.until("B listens", Duration.ofSeconds(60), () -> listenerBackend(url) != null);

            writeAndReadBack(a);
            assertThat(refreshes(a)).as("A refreshes nothing").isZero();
            assertThat(refreshes(b)).as("B refreshed A's marks").isPositive();

            Integer killed = listenerBackend(url);
            try (Connection admin = FaultSetup.connect(url); Statement statement = admin.createStatement()) {
                statement.execute("SELECT pg_terminate_backend(" + killed + ")");
            }
            Await.until("B listens again on another connection", Duration.ofSeconds(60), () -> {
                Integer now = listenerBackend(url);
                return now != null && !now.equals(killed);
            });
            writeAndReadBack(a);

            // the wait a write takes on the web node (refreshed by B) beside one on B (its own hand-off)
            List<Long> onWeb = new ArrayList<>();
            List<Long> onProcessing = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                onWeb.add(timedWrite(a));
                onProcessing.add(timedWrite(b));
            }
            Figures.report("a write with X-Await-Refresh, answered refreshed, p50: " + median(onWeb)
                    + " ms on a web node (refreshed by the processing node it signalled) vs " + median(onProcessing)
                    + " ms on the processing node itself (20 each, alternating)");
            assertThat(refreshes(a)).as("A still refreshes nothing").isZero();
            assertThat(count(url, FaultSetup.PENDING)).isZero();
            assertThat(count(url, FaultSetup.ORDER_SEARCH_WRONG)).isZero();
        }
    }

    /** A write to {@code server}, answered refreshed, and its read-back there. */
    private void writeAndReadBack(ServerProcess server) throws Exception {
        String customer = "web-processing-" + UUID.randomUUID();
        HttpResponse<String> created = createOrder(server, customer);
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        assertThat(created.headers().firstValue("X-Projections-Refreshed")).as("refreshed within " + AWAIT)
                .hasValue("true");
        long id = idOf(created.body());
        assertThat(get(server, "/demo/api/search/orders/" + id).body()).contains(customer);
    }

    private long timedWrite(ServerProcess server) throws Exception {
        long start = System.nanoTime();
        HttpResponse<String> created = createOrder(server, "timed-" + UUID.randomUUID());
        long millis = (System.nanoTime() - start) / 1_000_000;
        assertThat(created.headers().firstValue("X-Projections-Refreshed")).hasValue("true");
        return millis;
    }

    private static long median(List<Long> values) {
        List<Long> sorted = values.stream().sorted().toList();
        return sorted.get(sorted.size() / 2);
    }

    /** The backend of the connection that listens for commits on {@code url}'s database, if one does. */
    private static Integer listenerBackend(String url) {
        try (Connection connection = FaultSetup.connect(url); Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery("SELECT pid FROM pg_stat_activity WHERE datname = current_database()"
                     + " AND application_name = 'projections commit listener'")) {
            return rows.next() ? rows.getInt(1) : null;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private HttpResponse<String> createOrder(ServerProcess server, String customer) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(server.url("/demo/api/orders")))
                        .header("Content-Type", "application/json").header("X-Await-Refresh", AWAIT.toSeconds() + "s")
                        .POST(HttpRequest.BodyPublishers.ofString("{\"customer\":\"" + customer
                                + "\",\"lines\":[{\"sku\":\"a\",\"quantity\":1,\"price\":2}]}")).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> get(ServerProcess server, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(server.url(path))).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private String bodyOrEmpty(ServerProcess server, String path) {
        try {
            return get(server, path).body();
        } catch (Exception e) {
            return "";
        }
    }

    private long refreshes(ServerProcess server) throws Exception {
        return Figures.refreshes(server.url("/projections/metrics"), "success");
    }

    private static long idOf(String body) {
        Matcher m = Pattern.compile("\"id\":(\\d+)").matcher(body);
        assertThat(m.find()).as(body).isTrue();
        return Long.parseLong(m.group(1));
    }
}
