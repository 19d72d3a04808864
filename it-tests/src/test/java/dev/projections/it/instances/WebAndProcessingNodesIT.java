package dev.projections.it.instances;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.it.support.Await;
import dev.projections.it.support.OpenApiContract;
import dev.projections.it.support.OwnPostgres;
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
 * signals it, not because it looks: the sweeps run every 5 minutes and B's wake-up looks are off. An operator's resume
 * on A signals B too. A write to A with
 * {@code X-Await-Refresh: 5s} is answered refreshed and its read-back on A shows it; A's refresh meter counts nothing.
 * A wait on A for a key whose refresh takes B 1.5 s ends refreshed although A's waits poll every 30 s after their
 * first checks: B signals A when it refreshed.
 * Then PostgreSQL kills B's listening connection: B listens again and A's next commit is refreshed as fast; and the
 * database (a cluster of the test's own) crashes and starts again: both listen again by themselves, and both signals
 * work as before. Prints the
 * wait a write to A takes beside the same write to B (a single node's own hand-off), measured alternating.
 */
class WebAndProcessingNodesIT {

    private static final Duration AWAIT = Duration.ofSeconds(5);
    private static final long PROBE_DELAY_MILLIS = 1500;
    /** Below the ephemeral port range, and not DatabaseRestartIT's. */
    private static final int PORT = 25433;
    private static final Duration OUTAGE = Duration.ofSeconds(3);

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();

    @Test
    void aWebNodesCommitsAreRefreshedByTheProcessingNodeItSignalsAlsoAfterAKilledListenerAndADatabaseRestart() throws Exception {
        try (OwnPostgres postgres = new OwnPostgres(PORT).start()) {
            postgres.createDatabase("projection");
            String url = postgres.url("projection");
            try (Connection connection = connect(url)) {
                FaultSetup.createProbeTables(connection);
            }
            run(postgres, url);
        }
    }

    private void run(OwnPostgres postgres, String url) throws Exception {
        Path ear = FaultSetup.ear();
        Path probe = FaultSetup.probeDir("web-processing-probe");
        // every instance judges the others' liveness by its own sweep interval (3 of them): the same on both
        Map<String, String> web = new HashMap<>(FaultSetup.serverProperties(url, "postgres", "", probe, 0));
        web.put("projection.processing", "false");
        web.put("projection.sweep-interval", "300s");
        // after its first checks (the last 750 ms after the commit) a wait on A polls every 30 s
        web.put("projection.await-poll-interval", "30s");
        // B's refresh of a probe key takes 1.5 s
        Map<String, String> processing = new HashMap<>(FaultSetup.serverProperties(url, "postgres", "", probe,
                PROBE_DELAY_MILLIS));
        processing.put("projection.sweep-interval", "300s");
        processing.put("projection.wake-up-interval", "0");
        try (ServerProcess a = new ServerProcess("web-a", 100, ear, web);
             ServerProcess b = new ServerProcess("processing-b", 200, ear, processing)) {
            a.start(); // first alone: it creates the schema, and its first sweep (a second later) reports it
            Await.until("A reported as a web node", Duration.ofSeconds(60), () -> countOn(url,
                    "SELECT COUNT(*) FROM projection_node WHERE processing = FALSE") == 1);
            b.start();
            // B's first sweep, a second after its start, counts A as a live web node: from then on B signals its
            // refreshes to A. A signals its commits whatever it counted. The next sweeps are 5 minutes away, and B
            // makes no wake-up looks: only signals get A's marks refreshed within the waits below
            Await.until("B reported as a processing node", Duration.ofSeconds(60), () -> countOn(url,
                    "SELECT COUNT(*) FROM projection_node WHERE processing = TRUE") == 1);
            Await.until("B listens", Duration.ofSeconds(60), () -> listenerBackend(url, "processing-b") != null);

            writeAndReadBack(a);
            assertThat(refreshes(a)).as("A refreshes nothing").isZero();
            assertThat(refreshes(b)).as("B refreshed A's marks").isPositive();

            // an operator's resume on A signals too: B takes at once what the pause held
            assertThat(api(a, "projections/order-search/pause").statusCode()).isEqualTo(200);
            long held = idOf(createOrder(a, "held-" + UUID.randomUUID(), null).body());
            assertThat(api(a, "projections/order-search/resume").statusCode()).isEqualTo(200);
            Await.until("B refreshed the order the pause held", Duration.ofSeconds(20), () -> countOn(url,
                    "SELECT COUNT(*) FROM order_search WHERE order_id = " + held) == 1);

            Integer killed = listenerBackend(url);
            try (Connection admin = connect(url); Statement statement = admin.createStatement()) {
                statement.execute("SELECT pg_terminate_backend(" + killed + ")");
            }
            Await.until("B listens again on another connection", Duration.ofSeconds(60), () -> {
                Integer now = listenerBackend(url);
                return now != null && !now.equals(killed);
            });
            writeAndReadBack(a);

            // a wait on A for a key B refreshes 1.5 s later, when A's wait has made its first checks and next polls
            // in 30 s: it ends refreshed because B signals A that it refreshed
            HttpResponse<String> probed = probe(a, "slow-1");
            assertThat(probed.headers().firstValue("X-Projections-Refreshed")).as("A's wait woken by B's signal")
                    .hasValue("true");

            // the database restarts: both listeners listen again by themselves, and both signals work as before
            postgres.crash();
            Thread.sleep(OUTAGE.toMillis());
            postgres.start();
            Await.until("B listening again after the restart", Duration.ofSeconds(90),
                    () -> b.logContains("listening again for other instances' commits"));
            Await.until("A listening again after the restart", Duration.ofSeconds(90),
                    () -> a.logContains("listening again for other instances' commits"));
            writeAndReadBack(a);
            assertThat(probe(a, "slow-2").headers().firstValue("X-Projections-Refreshed"))
                    .as("A's wait woken by B's signal after the restart").hasValue("true");

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
            assertThat(countOn(url, FaultSetup.PENDING)).isZero();
            assertThat(countOn(url, FaultSetup.ORDER_SEARCH_WRONG)).isZero();
        }
    }

    /** A write to a probe key on {@code server}, waiting up to {@link #AWAIT} for its refresh. */
    private HttpResponse<String> probe(ServerProcess server, String id) throws Exception {
        HttpResponse<String> probed = http.send(HttpRequest.newBuilder(URI.create(server.url("/demo/api/probe/" + id)))
                .header("X-Await-Refresh", AWAIT.toSeconds() + "s")
                .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(probed.statusCode()).as(probed.body()).isEqualTo(200);
        return probed;
    }

    private static Connection connect(String url) throws java.sql.SQLException {
        return java.sql.DriverManager.getConnection(url, "postgres", "");
    }

    private static long countOn(String url, String sql) {
        try (Connection connection = connect(url); Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery(sql)) {
            return rows.next() ? rows.getLong(1) : 0;
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(sql, e);
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

    /** The backend of the connection with which {@code instance} listens for commits, if it does. */
    private static Integer listenerBackend(String url) {
        return listenerBackend(url, "processing-b");
    }

    private static Integer listenerBackend(String url, String instance) {
        try (Connection connection = connect(url); Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery("SELECT pid FROM pg_stat_activity WHERE datname = current_database()"
                     + " AND application_name = 'projections commit listener " + instance + "'")) {
            return rows.next() ? rows.getInt(1) : null;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private HttpResponse<String> createOrder(ServerProcess server, String customer) throws Exception {
        return createOrder(server, customer, AWAIT);
    }

    /** An order POSTed to {@code server}, waiting {@code await} for its refresh ({@code null}: not waiting). */
    private HttpResponse<String> createOrder(ServerProcess server, String customer, Duration await) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(server.url("/demo/api/orders")))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"customer\":\"" + customer
                        + "\",\"lines\":[{\"sku\":\"a\",\"quantity\":1,\"price\":2}]}"));
        if (await != null) {
            request.header("X-Await-Refresh", await.toSeconds() + "s");
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** A POST to the management API of {@code server} as the console's admin. */
    private HttpResponse<String> api(ServerProcess server, String path) throws Exception {
        String admin = java.util.Base64.getEncoder().encodeToString(
                ("admin:faults-admin").getBytes(java.nio.charset.StandardCharsets.UTF_8));
        return OpenApiContract.ofSourceTree().exchange(http, HttpRequest.newBuilder(URI.create(server.url(
                "/projections/api/v1/" + path))).header("Authorization", "Basic " + admin)
                .POST(HttpRequest.BodyPublishers.noBody()).build(), null, true);
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
