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
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Read your writes across instances (docs/contract.md §14): server A writes but refreshes nothing
 * ({@code projection.auto-refresh=false}), server B's sweep (every second) refreshes A's marks; a write to A with
 * {@code X-Await-Refresh} is answered {@code true} once B refreshed it — A learns it from the queue alone — and its
 * read-back on A shows it. With {@code projection.await-max-waiters=2} on A and both projections paused, two writes
 * wait; three more are answered "not waited" at once; once resumed, the two that waited end refreshed.
 */
class AwaitAcrossInstancesIT {

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(2)).build();

    @Test
    void aWaitOnOneInstanceEndsWhenTheOtherRefreshedItsKeysAndWaitersAreBounded() throws Exception {
        String url = FaultSetup.freshDatabase("projection_await_instances");
        Path ear = FaultSetup.ear();
        Path probe = FaultSetup.probeDir("await-instances-probe");
        Map<String, String> writer = new java.util.HashMap<>(FaultSetup.serverProperties(url, probe, 0));
        writer.put("projection.auto-refresh", "false");
        writer.put("projection.await-max-waiters", "2");
        try (ServerProcess a = new ServerProcess("node-a", 100, ear, writer);
             ServerProcess b = new ServerProcess("node-b", 200, ear, FaultSetup.serverProperties(url, probe, 0))) {
            a.start(); // first alone: it creates the schema
            b.start();

            String customer = "across-" + UUID.randomUUID();
            HttpResponse<String> created = createOrder(a, customer, "20s");
            assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
            assertThat(created.headers().firstValue("X-Projections-Refreshed")).hasValue("true");
            long id = idOf(created.body());
            assertThat(get(a, "/demo/api/search/orders/" + id).body()).contains(customer);
            assertThat(get(a, "/demo/api/stats/customers/" + customer).body()).contains("\"orderCount\":1");
            assertThat(refreshes(a)).as("A refreshes nothing").isZero();
            assertThat(refreshes(b)).as("B refreshed A's marks").isPositive();

            // both projections paused (the claim reads projection_control itself): two writes wait and hold
            setPaused(url, true);
            ExecutorService clients = Executors.newFixedThreadPool(2);
            try {
                List<Future<HttpResponse<String>>> held = new ArrayList<>();
                for (int i = 0; i < 2; i++) {
                    String each = "held-" + i + "-" + UUID.randomUUID();
                    held.add(clients.submit(() -> createOrder(a, each, "30s")));
                }
                Await.until("two writes waiting on A", Duration.ofSeconds(30), () -> waiting(a) == 2);
                for (int i = 0; i < 3; i++) {
                    HttpResponse<String> beyond = createOrder(a, "beyond-" + i + "-" + UUID.randomUUID(), "30s");
                    assertThat(beyond.statusCode()).isEqualTo(201);
                    assertThat(beyond.headers().firstValue("X-Projections-Refreshed")).as("not waited")
                            .hasValue("false");
                }
                assertThat(awaitCount(a, "not_waited")).isEqualTo(3);
                setPaused(url, false);
                for (Future<HttpResponse<String>> answer : held) {
                    assertThat(answer.get().headers().firstValue("X-Projections-Refreshed")).hasValue("true");
                }
            } finally {
                clients.shutdownNow();
                setPaused(url, false);
            }
            assertThat(count(url, "SELECT COUNT(*) FROM orders")).isEqualTo(6);
        }
    }

    private HttpResponse<String> createOrder(ServerProcess server, String customer, String await) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(server.url("/demo/api/orders")))
                .header("Content-Type", "application/json").header("X-Await-Refresh", await)
                .POST(HttpRequest.BodyPublishers.ofString("{\"customer\":\"" + customer
                        + "\",\"lines\":[{\"sku\":\"a\",\"quantity\":1,\"price\":2}]}")).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static void setPaused(String url, boolean paused) throws Exception {
        try (java.sql.Connection connection = FaultSetup.connect(url); java.sql.PreparedStatement upsert =
                connection.prepareStatement("INSERT INTO projection_control (projection, paused) VALUES (?, ?)"
                        + " ON CONFLICT (projection) DO UPDATE SET paused = EXCLUDED.paused")) {
            for (String projection : List.of("order-search", "customer-stats")) {
                upsert.setString(1, projection);
                upsert.setBoolean(2, paused);
                upsert.executeUpdate();
            }
        }
    }

    private double waiting(ServerProcess server) {
        try {
            Matcher gauge = Pattern.compile("projection_await_waiting(\\{[^}]*})? ([0-9.Ee+-]+)")
                    .matcher(get(server, "/projections/metrics").body());
            return gauge.find() ? Double.parseDouble(gauge.group(2)) : -1;
        } catch (Exception e) {
            return -1;
        }
    }

    private HttpResponse<String> get(ServerProcess server, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(server.url(path))).build(), HttpResponse.BodyHandlers.ofString());
    }

    private long refreshes(ServerProcess server) throws Exception {
        return Figures.refreshes(server.url("/projections/metrics"), "success");
    }

    private double awaitCount(ServerProcess server, String result) throws Exception {
        Matcher count = Pattern.compile("projection_await_seconds_count\\{result=\"" + result + "\"[^}]*} ([0-9.Ee+-]+)")
                .matcher(get(server, "/projections/metrics").body());
        assertThat(count.find()).isTrue();
        return Double.parseDouble(count.group(1));
    }

    private static long idOf(String body) {
        Matcher m = Pattern.compile("\"id\":(\\d+)").matcher(body);
        assertThat(m.find()).as(body).isTrue();
        return Long.parseLong(m.group(1));
    }
}
