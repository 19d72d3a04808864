package dev.projections.it.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.it.support.DemoReadModels;
import dev.projections.it.support.Deployments;
import dev.projections.it.support.ServerProcess;
import dev.projections.testsupport.TestDatabase;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Array;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.exporter.ZipExporter;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;

/**
 * The server, measured ({@code benchmarks/run.sh --server}): the demo EAR on the provisioned WildFly against
 * PostgreSQL, driven over HTTP by clients in this JVM, with plain-SQL bounds beside the engine's figures. Not an
 * integration test (its name keeps it out of failsafe's default set, and out of CI): it asserts only that every read
 * model is exact after each part, and writes its tables to {@code target/server-bench.txt}.
 *
 * <ol>
 *   <li>business transactions per second of {@value #CLIENTS} clients POSTing orders, on a server with marking off
 *       ({@code projection.enabled=false}), marking on without refresh ({@code projection.auto-refresh=false}), the
 *       synchronous bound (engine off, the read models refreshed inside the business transaction:
 *       {@code demo.synchronous-refresh=true}), and marking and refresh on, alternated for {@code bench.rounds} rounds (each variant a server start of its own,
 *       whose rate varies: the rounds show by how much); for the last, the tail until nothing is pending and
 *       committed-and-refreshed per second;</li>
 *   <li>commit → read model at light load: POST an order, then GET {@code /search/orders/{id}} until it is there,
 *       beside its floor (the POST's own round trip plus one GET of a row that exists);</li>
 *   <li>drain of the marks of N new orders after a resume, beside a plain-SQL drain of the same ids on 4 connections
 *       through the product's queue table (select for update skip locked, the projection's two statements, delete:
 *       one transaction per 100);</li>
 *   <li>rebuild of every order, beside the plain-SQL bound (the ids marked by one INSERT … SELECT, then drained as in 3);</li>
 *   <li>a rebuild of a big seeded table beside steady live load: the live changes' commit → read model with and
 *       without the rebuild, and the rebuild's ids per second with and without the load;</li>
 *   <li>from a cold start: on a server just started, nothing sent before, the light-load latency of the first
 *       {@code bench.cold-samples} orders, then the 4-client rate with refresh on in windows of
 *       {@code bench.cold-window-seconds} for {@code bench.cold-windows} windows, then the latency again: how long
 *       the server takes to reach its warm figures (issue 47 item 3);</li>
 *   <li>web and processing nodes on one database (docs/design.md D54, D55): the light-load latency of orders POSTed to
 *       a web node ({@code projection.processing=false}, refreshed by the processing node its commit signals) beside
 *       the same on the processing node itself, alternated; the 4-client rate and drain tail POSTing to either; and the
 *       drain of {@code bench.drain-orders} orders' marks after a resume with one processing node, then with two —
 *       every server on this machine's cores, its load printed beside.</li>
 * </ol>
 */
class ServerBenchmark {

    static final int CLIENTS = 4;
    private static final String ORDER_SEARCH = "order-search";
    private static final String CUSTOMER_STATS = "customer-stats";
    private static final Pattern ID = Pattern.compile("\"id\"\\s*:\\s*(\\d+)");
    private static final Pattern RUN_ID = Pattern.compile("\"runId\"\\s*:\\s*\"([^\"]+)\"");
    private static final Pattern ENDED = Pattern.compile("\"ended\"\\s*:\\s*true");
    private static final Pattern MARKED = Pattern.compile("\"marked\"\\s*:\\s*(\\d+)");
    /** Seeded ids start far above the sequence's, so Hibernate's ids never meet them. */
    private static final long SEED_BASE = 1_000_000_000L;
    private static final Path REPORT = Path.of("target", "server-bench.txt");

    private final Duration load = Duration.ofSeconds(Integer.getInteger("bench.load-seconds", 15));
    private final Duration warmUp = Duration.ofSeconds(Integer.getInteger("bench.warm-up-seconds", 10));
    private final int drainOrders = Integer.getInteger("bench.drain-orders", 50_000);
    /** Rounds of the three business-load variants, alternated: one server start each, so runs vary; rounds show by how much. */
    private final int rounds = Integer.getInteger("bench.rounds", 2);
    private final int bigRebuild = Integer.getInteger("bench.live-rebuild-ids", 1_000_000);
    private final int latencySamples = Integer.getInteger("bench.latency-samples", 300);
    /**
     * Part 2's sparse samples: orders {@value #SPARSE_GAP_MILLIS} ms apart, each handed to a drainer still collecting
     * since the last (they stay {@code Handoff.KEEP_ALIVE}, a second) by a condition signal.
     */
    private final int sparseSamples = Integer.getInteger("bench.sparse-samples", 100);
    private static final int SPARSE_GAP_MILLIS = 300;
    /**
     * Part 2's quiet samples: orders {@value #QUIET_GAP_MILLIS} ms apart, longer than a drainer stays, so each commit
     * starts one: a single commit as an application with little traffic sees it.
     */
    private final int quietSamples = Integer.getInteger("bench.quiet-samples", 30);
    private static final int QUIET_GAP_MILLIS = 1_500;
    /** The longest the live load runs beside a rebuild: live marks come first, so a load the engine cannot keep up with starves the run. */
    private final Duration liveRebuildLimit = Duration.ofSeconds(Integer.getInteger("bench.live-rebuild-seconds", 60));
    /** Which parts run ({@code bench.parts=3,4}: the drain, then the rebuild of the orders it made); default all. */
    private final java.util.Set<Integer> parts = java.util.Arrays.stream(
                    System.getProperty("bench.parts", "1,2,3,4,5,6,7,8").split(","))
            .map(String::trim).map(Integer::valueOf).collect(java.util.stream.Collectors.toSet());
    /** How many times part 4 rebuilds every order, one after the other on the same server. */
    private final int rebuildRepetitions = Integer.getInteger("bench.rebuild-repetitions", 1);
    private final int coldSamples = Integer.getInteger("bench.cold-samples", 200);
    private final Duration coldWindow = Duration.ofSeconds(Integer.getInteger("bench.cold-window-seconds", 10));
    private final int coldWindows = Integer.getInteger("bench.cold-windows", 9);
    /** Settings of the engine on every server the benchmark starts ({@code bench.server-settings=k=v,k=v}). */
    private final Map<String, String> serverSettings = serverSettings(System.getProperty("bench.server-settings", ""));
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private final StringBuilder report = new StringBuilder();
    private volatile String jdbcUrl;

    @Test
    void measureTheDemoOnWildFly() throws Exception {
        if (parts.contains(4) && java.util.Collections.disjoint(parts, java.util.Set.of(1, 2, 3))) {
            // a fresh database has no orders: the rebuild would time nothing and print NaN
            throw new IllegalArgumentException("bench.parts=" + System.getProperty("bench.parts")
                    + ": part 4 rebuilds the orders an earlier part made; run it with part 3 (bench.parts=3,4), 1 or 2");
        }
        Files.deleteIfExists(REPORT);
        Path ear = ear();
        Thread vacuum = vacuumEveryFiveSeconds();
        line("Server benchmark: the demo EAR on the provisioned WildFly, PostgreSQL %s, %d cores; %d s of load per "
                + "variant after %d s untimed, %,d orders drained, %,d ids in the live rebuild", TestDatabase.get().jdbcUrl(),
                Runtime.getRuntime().availableProcessors(), load.toSeconds(), warmUp.toSeconds(), drainOrders, bigRebuild);

        line("");
        line("1. Business transactions, %d clients POSTing an order of one line for %d s, the variants alternated in %d "
                + "round(s), each on a server of its own", CLIENTS, load.toSeconds(), rounds);
        line("   %-6s %-26s %10s %10s %s", "round", "variant", "tx/s", "÷ off", "machine load");
        ServerProcess server = null;
        try {
            if (parts.contains(6)) {
                fromColdStart(ear); // first: a server of its own, started before any other's JIT could help the OS caches
            }
            for (int round = 1; round <= rounds && parts.contains(1); round++) {
                Throughput off = businessLoad(ear, Map.of("projection.enabled", "false"), "marking off");
                printRound(round, off, off);
                printRound(round, businessLoad(ear, Map.of("projection.auto-refresh", "false"),
                        "marking on, no refresh"), off);
                // the bound: the same refresh statements inside the business transaction, no engine
                Throughput bound = businessLoad(ear, Map.of("projection.enabled", "false",
                        "demo.synchronous-refresh", "true"), "synchronous refresh (bound)");
                printRound(round, bound, off);
                server = startOnFreshDatabase(ear, Map.of());
                Throughput refreshing = warmedLoad(server, "marking and refresh on", true);
                Duration tail = waitUntilDrained();
                checkExact("after the business load");
                printRound(round, refreshing, off);
                double refreshed = refreshing.committed / (refreshing.seconds + tail.toNanos() / 1e9);
                line("   %-6s refresh on: %,d committed, drained %.2f s after the load ended, committed-and-refreshed "
                        + "%,.0f/s, 0 pending, read models exact; ÷ synchronous bound %.2f", "", refreshing.committed,
                        tail.toNanos() / 1e9, refreshed, refreshing.perSecond() / bound.perSecond());
                if (round < rounds) {
                    server.close();
                    server = null;
                }
            }
            if (server == null && parts.stream().anyMatch(part -> part >= 2 && part <= 5)) {
                // part 1 left out: a server of its own for the rest
                server = startOnFreshDatabase(ear, Map.of());
                if (parts.contains(2)) {
                    // part 2 measures a warm server, as after part 1's load: the same load, untimed, then drained
                    long start = System.nanoTime();
                    measureLoad(server, "warm-up", CLIENTS, elapsed(start, warmUp));
                    Duration tail = waitUntilDrained();
                    line("");
                    line("   (part 1 left out: the server warmed by %d s of its load, drained %.2f s after it%s)",
                            warmUp.toSeconds(), tail.toNanos() / 1e9, vacuumedWithoutAutovacuum());
                }
            }
            // the last round's server, refreshing, runs the rest
            if (parts.contains(2)) {
                lightLoadLatency(server);
            }
            if (parts.contains(3)) {
                drainAfterResume(server);
            }
            for (int repetition = 0; repetition < rebuildRepetitions && parts.contains(4); repetition++) {
                rebuildEveryOrder(server);
            }
            if (parts.contains(5)) {
                rebuildBesideLiveLoad(server);
            }
            if (parts.contains(7)) {
                if (server != null) {
                    server.close(); // its port and its database are part 7's
                    server = null;
                }
                webAndProcessingNodes(ear);
            }
            if (parts.contains(8)) {
                if (server != null) {
                    server.close();
                    server = null;
                }
                withoutWaitingForTheDisk(ear);
            }
        } finally {
            if (server != null) {
                server.close();
            }
            vacuum.interrupt();
            System.out.println(report);
        }
    }

    /**
     * Part 8: part 2 on a server of its own whose refreshes commit without waiting for the disk
     * ({@code projection.synchronous-commit=off}, docs/design.md D63), warmed as part 2's is: {@code bench.parts=2,8}
     * prints the two side by side.
     */
    private void withoutWaitingForTheDisk(Path ear) throws Exception {
        try (ServerProcess server = startOnFreshDatabase(ear, Map.of("projection.synchronous-commit", "off"))) {
            long start = System.nanoTime();
            measureLoad(server, "warm-up", CLIENTS, elapsed(start, warmUp));
            waitUntilDrained();
            lightLoadLatency(server, "8. As 2, the refreshes committing without waiting for the disk "
                    + "(projection.synchronous-commit=off)");
        }
    }

    // ---- 1. business load ----

    private void printRound(int round, Throughput t, Throughput off) throws Exception {
        line("   %-6d %-26s %,10.0f %10.2f %s", round, t.variant, t.perSecond(), t.perSecond() / off.perSecond(),
                loadAverage());
    }

    private Throughput businessLoad(Path ear, Map<String, String> settings, String variant) throws Exception {
        try (ServerProcess server = startOnFreshDatabase(ear, settings)) {
            return warmedLoad(server, variant, false);
        }
    }

    /** {@link #warmUp} of the same load untimed, so that the server's JIT has compiled what is measured, then the load. */
    private Throughput warmedLoad(ServerProcess server, String variant, boolean refreshes) throws Exception {
        long start = System.nanoTime();
        measureLoad(server, "warm-up", CLIENTS, elapsed(start, warmUp));
        if (refreshes) {
            waitUntilDrained();
        }
        return measureLoad(server, variant, CLIENTS, null);
    }

    /** {@code clients} POST orders for {@link #load} (or until {@code until} is true, when given). */
    private Throughput measureLoad(ServerProcess server, String variant, int clients, BooleanSupplier until)
            throws Exception {
        post(server, "/demo/api/orders", order("warm-up")); // the first request deploys lazily what it needs
        AtomicLong committed = new AtomicLong();
        AtomicBoolean stop = new AtomicBoolean();
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        List<Future<?>> futures = new ArrayList<>();
        long start = System.nanoTime();
        for (int c = 0; c < clients; c++) {
            int client = c;
            futures.add(pool.submit(() -> {
                for (int n = 0; !stop.get(); n++) {
                    post(server, "/demo/api/orders", order("client-" + client + "-" + n % 20));
                    committed.incrementAndGet();
                }
                return null;
            }));
        }
        waitFor(until != null ? until : elapsed(start, load));
        stop.set(true);
        for (Future<?> future : futures) {
            future.get();
        }
        pool.shutdown();
        return new Throughput(variant, committed.get(), (System.nanoTime() - start) / 1e9);
    }

    record Throughput(String variant, long committed, double seconds) {
        double perSecond() {
            return committed / seconds;
        }
    }

    // ---- 2. light-load latency ----

    private void lightLoadLatency(ServerProcess server) throws Exception {
        lightLoadLatency(server, "2. Commit → read model at light load");
    }

    /** Part 2's samples, under {@code title}. */
    private void lightLoadLatency(ServerProcess server, String title) throws Exception {
        Latencies latencies = new Latencies();
        for (int i = 0; i < latencySamples; i++) {
            latencies.sample(server, "light-" + i % 20);
            Thread.sleep(10); // light load: each commit alone
        }
        line("");
        line("%s, %d orders one at a time (machine load %s)", title, latencySamples, loadAverage());
        latencies.print("   ");
        samplesApart(server, sparseSamples, SPARSE_GAP_MILLIS, "sparse", "each handed to a drainer collecting");
        samplesApart(server, quietSamples, QUIET_GAP_MILLIS, "quiet", "each starting a drainer");
    }

    private void samplesApart(ServerProcess server, int count, int gapMillis, String name, String what)
            throws Exception {
        if (count <= 0) {
            return;
        }
        Latencies apart = new Latencies();
        for (int i = 0; i < count; i++) {
            Thread.sleep(gapMillis);
            apart.sample(server, name + "-" + i % 20);
        }
        line("   %s: %d orders %d ms apart, %s (machine load %s)", name, count, gapMillis, what, loadAverage());
        apart.print("   ");
    }

    /**
     * POST-to-visible times of single orders beside their floors: the POST's round trip plus one GET that finds. Every
     * second sample watches for the read model's row by a query on a connection of its own instead of by GETs: a GET
     * of the demo takes about a millisecond, so polling by GETs adds up to one GET's time (half of it at the median)
     * to when the row is seen, a query about a tenth of that (docs/BENCHMARKS.md, "Two ways to see the row").
     */
    private final class Latencies {
        final List<Long> visible = new ArrayList<>();
        final List<Long> floor = new ArrayList<>();
        /** What the engine adds: from the POST's return until a GET finds the order, less one GET that finds it. */
        final List<Long> added = new ArrayList<>();
        /** The same seen by queries: from the POST's return until a query finds the row, less one query that finds it. */
        final List<Long> addedByQuery = new ArrayList<>();
        private int samples;

        void sample(ServerProcess server, String customer) throws Exception {
            boolean byQuery;
            synchronized (this) {
                byQuery = samples++ % 2 == 1;
            }
            if (byQuery) {
                sampleByQuery(server, customer);
                return;
            }
            long t0 = System.nanoTime();
            long id = id(post(server, "/demo/api/orders", order(customer)));
            long t1 = System.nanoTime();
            while (get(server, "/demo/api/search/orders/" + id) != 200) {
                java.util.concurrent.locks.LockSupport.parkNanos(250_000); // polls 4 times a millisecond, not flat out
            }
            long t2 = System.nanoTime();
            get(server, "/demo/api/search/orders/" + id);
            long t3 = System.nanoTime();
            synchronized (this) {
                visible.add(t2 - t0);
                floor.add((t1 - t0) + (t3 - t2));
                added.add(Math.max(0, (t2 - t1) - (t3 - t2)));
            }
        }

        private void sampleByQuery(ServerProcess server, String customer) throws Exception {
            try (Connection connection = connect();
                 PreparedStatement select = connection.prepareStatement(
                         "SELECT 1 FROM order_search WHERE order_id = ?")) {
                found(select, -1); // the connection's first statement before the clock starts
                long id = id(post(server, "/demo/api/orders", order(customer)));
                long t1 = System.nanoTime();
                while (!found(select, id)) {
                    java.util.concurrent.locks.LockSupport.parkNanos(50_000);
                }
                long t2 = System.nanoTime();
                found(select, id);
                long t3 = System.nanoTime();
                synchronized (this) {
                    addedByQuery.add(Math.max(0, (t2 - t1) - (t3 - t2)));
                }
            }
        }

        private static boolean found(PreparedStatement select, long id) throws SQLException {
            select.setLong(1, id);
            try (ResultSet rows = select.executeQuery()) {
                return rows.next();
            }
        }

        void print(String indent) {
            line("%s%-34s %9s %9s", indent, "ms", "p50", "p99");
            line("%s%-34s %9.2f %9.2f", indent, "POST → GET finds the order", millis(visible, 0.5), millis(visible, 0.99));
            line("%s%-34s %9.2f %9.2f", indent, "floor: POST + one GET that finds", millis(floor, 0.5), millis(floor, 0.99));
            line("%s%-34s %9.2f %9.2f", indent, "÷ floor", millis(visible, 0.5) / millis(floor, 0.5),
                    millis(visible, 0.99) / millis(floor, 0.99));
            line("%s%-34s %9.2f %9.2f", indent, "added: POST returned → GET finds,", millis(added, 0.5),
                    millis(added, 0.99));
            line("%s%-34s", indent, "  less one GET that finds");
            if (!addedByQuery.isEmpty()) {
                line("%s%-34s %9.2f %9.2f", indent, "added: POST returned → a query", millis(addedByQuery, 0.5),
                        millis(addedByQuery, 0.99));
                line("%s%-34s", indent, "  finds, less one query (alternate");
                line("%s%-34s", indent, "  samples)");
            }
        }

        synchronized double p99() {
            return millis(visible, 0.99);
        }
    }

    // ---- 7. web and processing nodes ----

    private void webAndProcessingNodes(Path ear) throws Exception {
        try (ServerProcess processing = startOnFreshDatabase(ear, Map.of());
             ServerProcess web = startOnSameDatabase(ear, Map.of("projection.processing", "false"), "bench-web", 400)) {
            long start = System.nanoTime();
            measureLoad(web, "warm-up", CLIENTS, elapsed(start, warmUp));
            start = System.nanoTime();
            measureLoad(processing, "warm-up", CLIENTS, elapsed(start, warmUp));
            waitUntilDrained();
            Latencies onWeb = new Latencies();
            Latencies onProcessing = new Latencies();
            for (int i = 0; i < latencySamples; i++) {
                onWeb.sample(web, "web-" + i % 20);
                Thread.sleep(10);
                onProcessing.sample(processing, "processing-" + i % 20);
                Thread.sleep(10);
            }
            line("");
            line("7. Web and processing nodes on one database: a web node (projection.processing=false) and a processing "
                    + "node, both on this machine's %d cores", Runtime.getRuntime().availableProcessors());
            line("   commit → read model at light load, %d orders each, alternated (machine load %s); POSTed to the web "
                    + "node, refreshed by the processing node:", latencySamples, loadAverage());
            onWeb.print("   ");
            line("   the same POSTed to the processing node itself:");
            onProcessing.print("   ");
            line("   web ÷ processing node, added p50: %.2f (%.2f ms more)", millis(onWeb.added, 0.5)
                    / millis(onProcessing.added, 0.5), millis(onWeb.added, 0.5) - millis(onProcessing.added, 0.5));

            Throughput onTheProcessingNode = measureLoad(processing, "4 clients on the processing node", CLIENTS, null);
            Duration processingTail = waitUntilDrained();
            Throughput onTheWebNode = measureLoad(web, "4 clients on the web node", CLIENTS, null);
            Duration webTail = waitUntilDrained();
            checkExact("after the load on the web and processing nodes");
            line("   %d clients POSTing for %d s: to the processing node %,.0f tx/s (drained %.2f s after), to the web "
                    + "node %,.0f tx/s (drained %.2f s after; machine load %s)", CLIENTS, load.toSeconds(),
                    onTheProcessingNode.perSecond(), processingTail.toNanos() / 1e9, onTheWebNode.perSecond(),
                    webTail.toNanos() / 1e9, loadAverage());

            // the drain with 1, 2 and 4 processing nodes: the ones added start, warm up, and join
            List<ServerProcess> added = new ArrayList<>();
            try {
                double one = drainAfterAResume(web).perSecond();
                StringBuilder rates = new StringBuilder(String.format(Locale.ROOT, "1: %,.0f keys/s", one));
                for (int nodes = 2; nodes <= 4; nodes *= 2) {
                    while (added.size() < nodes - 1) {
                        ServerProcess more = startOnSameDatabase(ear, Map.of(), "bench-processing-" + (added.size() + 2),
                                500 + 100 * added.size());
                        added.add(more);
                        start = System.nanoTime();
                        measureLoad(more, "warm-up", CLIENTS, elapsed(start, warmUp));
                    }
                    waitUntilDrained();
                    double rate = drainAfterAResume(web).perSecond();
                    rates.append(String.format(Locale.ROOT, ", %d: %,.0f keys/s (× %.2f)", nodes, rate, rate / one));
                }
                line("   drain of %,d orders' marks after a resume on the web node, by processing nodes %s; machine "
                        + "load %s", drainOrders, rates, loadAverage());
            } finally {
                for (ServerProcess more : added) {
                    more.close();
                }
            }
        }
    }

    // ---- 6. from a cold start ----

    private void fromColdStart(Path ear) throws Exception {
        try (ServerProcess server = startOnFreshDatabase(ear, Map.of())) {
            line("");
            line("6. From a cold start: a server just started, nothing sent before; %d orders one at a time, then %d "
                    + "clients POSTing in windows of %d s, then %d orders one at a time again", coldSamples, CLIENTS,
                    coldWindow.toSeconds(), coldSamples);
            long started = System.nanoTime();
            Latencies first = new Latencies();
            for (int i = 0; i < coldSamples; i++) {
                first.sample(server, "cold-" + i % 20);
                Thread.sleep(10);
            }
            line("   light load, the first %d orders (machine load %s)", coldSamples, loadAverage());
            first.print("   ");
            line("   %-8s %-12s %10s %12s %s", "window", "since start", "tx/s", "÷ last", "machine load");
            List<Throughput> windows = new ArrayList<>();
            List<String> since = new ArrayList<>();
            for (int w = 0; w < coldWindows; w++) {
                since.add(String.format("%.0f s", (System.nanoTime() - started) / 1e9));
                windows.add(measureLoad(server, "window " + (w + 1), CLIENTS, elapsed(System.nanoTime(), coldWindow)));
                waitUntilDrained();
            }
            double last = windows.get(windows.size() - 1).perSecond();
            for (int w = 0; w < windows.size(); w++) {
                line("   %-8d %-12s %,10.0f %12.2f %s", w + 1, since.get(w), windows.get(w).perSecond(),
                        windows.get(w).perSecond() / last, w == windows.size() - 1 ? loadAverage() : "");
            }
            Latencies warm = new Latencies();
            for (int i = 0; i < coldSamples; i++) {
                warm.sample(server, "warm-" + i % 20);
                Thread.sleep(10);
            }
            line("   light load again, %.0f s after the start (machine load %s)", (System.nanoTime() - started) / 1e9,
                    loadAverage());
            warm.print("   ");
            checkExact("after the cold start");
        }
    }

    // ---- 3. drain after a resume ----

    private void drainAfterResume(ServerProcess server) throws Exception {
        long before = count("SELECT COALESCE(MAX(id), 0) FROM orders");
        Drained drained = drainAfterAResume(server);
        long keys = drained.keys();
        Duration engine = drained.took();
        double bound = plainDrain(server, "SELECT id FROM orders WHERE id > " + before);
        line("");
        line("3. Drain of %,d marks (%,d new orders and their customers) after a resume (machine load %s)", keys,
                drainOrders, loadAverage());
        line("   engine %,.0f keys/s, plain SQL on 4 connections %,.0f orders/s, engine ÷ bound %.2f",
                keys / (engine.toNanos() / 1e9), bound, keys / (engine.toNanos() / 1e9) / bound);
    }

    /**
     * The marks of {@link #drainOrders} new orders made through {@code server} while both projections are paused, then
     * resumed there: how many keys, and how long until nothing was pending; the read models checked after.
     */
    private Drained drainAfterAResume(ServerProcess server) throws Exception {
        post(server, "/demo/api/bench/" + ORDER_SEARCH + "/pause", "");
        post(server, "/demo/api/bench/" + CUSTOMER_STATS + "/pause", "");
        for (int made = 0; made < drainOrders; made += 1000) {
            post(server, "/demo/api/load?orders=" + Math.min(1000, drainOrders - made), "");
        }
        long keys = count("SELECT COUNT(*) FROM projection_pending");
        long start = System.nanoTime();
        post(server, "/demo/api/bench/" + ORDER_SEARCH + "/resume", "");
        post(server, "/demo/api/bench/" + CUSTOMER_STATS + "/resume", "");
        waitUntilDrained();
        Drained drained = new Drained(keys, Duration.ofNanos(System.nanoTime() - start));
        checkExact("after a drain resumed on " + server.node());
        return drained;
    }

    record Drained(long keys, Duration took) {
        double perSecond() {
            return keys / (took.toNanos() / 1e9);
        }
    }

    /**
     * The bound of a drain, on the product's own queue table as the SE benchmark's: the ids {@code select} returns
     * marked in {@code projection_pending} for order-search (paused meanwhile, so the engine leaves them alone) by one
     * {@code INSERT … SELECT}, then taken 100 at a time by 4 connections (the due marks locked in claim order, skip
     * locked, on the claim index; the projection's delete and insert; the marks' delete; one transaction each);
     * returns ids per second, marking included.
     */
    private double plainDrain(ServerProcess server, String select) throws Exception {
        post(server, "/demo/api/bench/" + ORDER_SEARCH + "/pause", "");
        long start = System.nanoTime();
        long ids;
        try (Connection connection = connect();
             PreparedStatement mark = connection.prepareStatement("""
                     INSERT INTO projection_pending
                            (projection, tenant_id, entity_id, generation, mark_count, priority, attempts, available_at,
                             first_marked_at)
                     SELECT ?, '', q.id::text, gen_random_uuid()::text, 1, 0, 0, now(), now()
                       FROM (%s) q
                     """.formatted(select))) {
            mark.setString(1, ORDER_SEARCH);
            ids = mark.executeUpdate();
        }
        ExecutorService pool = Executors.newFixedThreadPool(4);
        List<Future<?>> workers = new ArrayList<>();
        for (int w = 0; w < 4; w++) {
            workers.add(pool.submit(() -> {
                try (Connection connection = connect();
                     PreparedStatement claim = connection.prepareStatement("""
                             SELECT entity_id FROM projection_pending
                              WHERE projection = ? AND available_at <= now()
                              ORDER BY priority, available_at
                              LIMIT 100
                                FOR UPDATE SKIP LOCKED""");
                     PreparedStatement delete = connection.prepareStatement(
                             "DELETE FROM order_search WHERE order_id = ANY (?)");
                     PreparedStatement insert = connection.prepareStatement("""
                             INSERT INTO order_search (order_id, tenant_id, customer_name, status, line_count, total,
                                                       source_version)
                             SELECT o.id, o.tenant_id, c.name, o.status, COUNT(l.id), COALESCE(SUM(l.quantity * l.price), 0),
                                    o.version
                               FROM orders o JOIN customer c ON c.id = o.customer_id
                               LEFT JOIN order_line l ON l.order_id = o.id
                              WHERE o.id = ANY (?) AND o.tenant_id = ''
                              GROUP BY o.id, o.tenant_id, c.name, o.status, o.version""");
                     PreparedStatement done = connection.prepareStatement("""
                             DELETE FROM projection_pending
                              WHERE projection = ? AND tenant_id = '' AND entity_id = ANY (?)""")) {
                    connection.setAutoCommit(false);
                    claim.setString(1, ORDER_SEARCH);
                    done.setString(1, ORDER_SEARCH);
                    while (true) {
                        List<String> batch = new ArrayList<>();
                        try (ResultSet rows = claim.executeQuery()) {
                            while (rows.next()) {
                                batch.add(rows.getString(1));
                            }
                        }
                        if (batch.isEmpty()) {
                            connection.commit();
                            return null;
                        }
                        Array orderIds = connection.createArrayOf("bigint",
                                batch.stream().map(Long::valueOf).toArray());
                        for (PreparedStatement statement : List.of(delete, insert)) {
                            statement.setArray(1, orderIds);
                            statement.executeUpdate();
                        }
                        done.setArray(2, connection.createArrayOf("varchar", batch.toArray()));
                        done.executeUpdate();
                        connection.commit();
                    }
                }
            }));
        }
        for (Future<?> worker : workers) {
            worker.get();
        }
        pool.shutdown();
        double rate = ids / ((System.nanoTime() - start) / 1e9);
        post(server, "/demo/api/bench/" + ORDER_SEARCH + "/resume", "");
        return rate;
    }

    // ---- 4. rebuild ----

    private void rebuildEveryOrder(ServerProcess server) throws Exception {
        long orders = count("SELECT COUNT(*) FROM orders");
        double engine = orders / (rebuild(server, ORDER_SEARCH).toNanos() / 1e9);
        checkExact("after the rebuild");
        double bound = plainDrain(server, "SELECT id FROM orders");
        line("");
        line("4. Rebuild of order-search, %,d orders (machine load %s)", orders, loadAverage());
        line("   engine %,.0f ids/s (start to nothing pending), plain SQL %,.0f ids/s, engine ÷ bound %.2f", engine,
                bound, engine / bound);
    }

    /** Starts a rebuild of {@code projection} and returns the time until it ended and none of its marks is pending. */
    private Duration rebuild(ServerProcess server, String projection) throws Exception {
        long start = System.nanoTime();
        awaitRebuild(server, startRebuild(server, projection));
        return Duration.ofNanos(System.nanoTime() - start);
    }

    private String startRebuild(ServerProcess server, String projection) throws Exception {
        String body = post(server, "/demo/api/bench/" + projection + "/rebuild", "");
        Matcher runId = RUN_ID.matcher(body);
        assertThat(runId.find()).as("a run id in " + body).isTrue();
        return runId.group(1);
    }

    private void awaitRebuild(ServerProcess server, String runId) throws Exception {
        waitFor(() -> rebuildEnded(server, runId));
        waitUntilNone("priority = 1"); // a rebuild's marks (live load beside it keeps marking at priority 0)
    }

    private boolean rebuildEnded(ServerProcess server, String runId) {
        return ENDED.matcher(getBody(server, "/demo/api/bench/rebuilds/" + runId)).find();
    }

    private long marked(ServerProcess server, String runId) {
        Matcher marked = MARKED.matcher(getBody(server, "/demo/api/bench/rebuilds/" + runId));
        assertThat(marked.find()).isTrue();
        return Long.parseLong(marked.group(1));
    }

    // ---- 5. rebuild beside live load ----

    private void rebuildBesideLiveLoad(ServerProcess server) throws Exception {
        seedOrders(bigRebuild);
        rebuild(server, CUSTOMER_STATS); // the seeded orders' customer
        long orders = count("SELECT COUNT(*) FROM orders");
        double alone = orders / (rebuild(server, ORDER_SEARCH).toNanos() / 1e9);
        checkExact("after the rebuild alone");

        Latencies quiet = liveLoad(server, null);
        waitUntilDrained();
        long start = System.nanoTime();
        String runId = startRebuild(server, ORDER_SEARCH);
        long deadline = start + liveRebuildLimit.toNanos();
        Latencies during = liveLoad(server, () -> rebuildEnded(server, runId) || System.nanoTime() > deadline);
        double besideSeconds = (System.nanoTime() - start) / 1e9;
        // refreshed while the load ran: what the run marked less its marks still pending
        long refreshedBeside = marked(server, runId) - count("SELECT COUNT(*) FROM projection_pending WHERE priority = 1");
        awaitRebuild(server, runId);
        double wholeSeconds = (System.nanoTime() - start) / 1e9;
        waitUntilDrained();
        checkExact("after the rebuild beside live load");
        double beside = refreshedBeside / besideSeconds;
        line("");
        line("5. Rebuild of %,d orders beside live load: %d clients POSTing orders, one more measuring commit → read model "
                + "(machine load %s)", orders, CLIENTS - 1, loadAverage());
        line("   live load alone:");
        quiet.print("     ");
        line("   live load during the rebuild (%.0f s, the rebuild's first %,d ids refreshed meanwhile):", besideSeconds,
                refreshedBeside);
        during.print("     ");
        line("   live p99 during ÷ without the rebuild %.2f; rebuild %,.0f ids/s alone, %,.0f beside the load, ratio %.2f; "
                + "the whole run took %.0f s", during.p99() / quiet.p99(), alone, beside, beside / alone, wholeSeconds);
    }

    /** {@code CLIENTS - 1} clients of business load and one measuring latencies, for {@link #load} or until {@code until}. */
    private Latencies liveLoad(ServerProcess server, BooleanSupplier until) throws Exception {
        Latencies latencies = new Latencies();
        AtomicBoolean stop = new AtomicBoolean();
        Thread probe = new Thread(() -> {
            try {
                for (int i = 0; !stop.get(); i++) {
                    latencies.sample(server, "probe-" + i % 20);
                    Thread.sleep(10);
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        probe.start();
        measureLoad(server, "live", CLIENTS - 1, until);
        stop.set(true);
        probe.join();
        return latencies;
    }

    /** {@code n} orders of one line each for one customer, written by SQL (ids above any Hibernate gives). */
    private void seedOrders(int n) throws SQLException {
        try (Connection connection = connect(); Statement statement = connection.createStatement()) {
            statement.execute("INSERT INTO customer (id, tenant_id, name) VALUES (" + SEED_BASE + ", '', 'seeded')");
            statement.execute("INSERT INTO orders (id, tenant_id, customer_id, status, version) SELECT " + SEED_BASE
                    + " + g, '', " + SEED_BASE + ", 'NEW', 0 FROM generate_series(1, " + n + ") g");
            statement.execute("INSERT INTO order_line (id, order_id, sku, quantity, price) SELECT " + SEED_BASE
                    + " + g, " + SEED_BASE + " + g, 'sku-' || (g % 100), 1 + g % 5, (g % 10000) / 100.0 + 0.01"
                    + " FROM generate_series(1, " + n + ") g");
            statement.execute("ANALYZE orders");
            statement.execute("ANALYZE order_line");
        }
    }

    // ---- the server, the database, HTTP ----

    /**
     * The machine's PostgreSQL runs without autovacuum (docs/pitfalls.md #29); a production one vacuums the queue and
     * the read models as they churn. Every 5 s, as autovacuum tuned for the queue would (benchmark scenario 6 does
     * the same): without it a run's 1,000,000 acks leave the queue's index a graveyard every claim walks through.
     */
    private Thread vacuumEveryFiveSeconds() {
        Thread vacuum = new Thread(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                try {
                    Thread.sleep(5_000);
                } catch (InterruptedException e) {
                    return;
                }
                try (Connection connection = connect(); Statement statement = connection.createStatement()) {
                    statement.execute("VACUUM ANALYZE projection_pending, order_search, customer_stats");
                } catch (SQLException e) {
                    // no queue yet (a server starting, or marking off): nothing to vacuum
                }
            }
        }, "bench-vacuum");
        vacuum.setDaemon(true);
        vacuum.start();
        return vacuum;
    }

    private static Map<String, String> serverSettings(String list) {
        Map<String, String> settings = new HashMap<>();
        for (String pair : list.split(",")) {
            if (!pair.isBlank()) {
                int equals = pair.indexOf('=');
                if (equals < 1) {
                    throw new IllegalArgumentException("bench.server-settings: \"" + pair + "\" is not key=value");
                }
                settings.put(pair.substring(0, equals).trim(), pair.substring(equals + 1).trim());
            }
        }
        return settings;
    }

    private ServerProcess startOnFreshDatabase(Path ear, Map<String, String> settings) throws Exception {
        TestDatabase database = TestDatabase.get();
        try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
            statement.execute("DROP DATABASE IF EXISTS projection_bench_server WITH (FORCE)");
            statement.execute("CREATE DATABASE projection_bench_server");
        }
        jdbcUrl = database.jdbcUrl().replaceFirst("/[^/?]+(\\?|$)", "/projection_bench_server$1");
        return startOnSameDatabase(ear, settings, "bench", 300);
    }

    /** Another server, {@code node} at {@code portOffset}, on the database the last fresh start made. */
    private ServerProcess startOnSameDatabase(Path ear, Map<String, String> settings, String node, int portOffset)
            throws Exception {
        TestDatabase database = TestDatabase.get();
        Map<String, String> properties = new HashMap<>(serverSettings);
        properties.putAll(settings);
        properties.put("projection.db.url", jdbcUrl);
        properties.put("projection.db.user", database.user());
        if (!database.password().isEmpty()) {
            properties.put("projection.db.password", database.password()); // WildFly refuses an empty one
        }
        return new ServerProcess(node, portOffset, ear, properties).start();
    }

    /**
     * The demo EAR as the build made it, with {@link BenchControlResource} in its WAR and nothing else: the settings a
     * newcomer gets (the defaults), and none of the tests' recorders ({@link Deployments} adds one that keeps every
     * refresh in memory: a million-id rebuild fills the server's heap with it).
     */
    private static Path ear() {
        Path built = Path.of(System.getProperty("projection.ear", "../projection-ear/target/projection-ear.ear"));
        EnterpriseArchive ear = ShrinkWrap.createFromZipFile(EnterpriseArchive.class, built.toFile());
        WebArchive web = ear.getAsType(WebArchive.class, "demo-web.war");
        web.addClass(BenchControlResource.class);
        ear.delete("demo-web.war");
        ear.addAsModule(web);
        Path file = Path.of("target", "server-bench.ear").toAbsolutePath();
        ear.as(ZipExporter.class).exportTo(file.toFile(), true);
        return file;
    }

    private Connection connect() throws SQLException {
        TestDatabase database = TestDatabase.get();
        return DriverManager.getConnection(jdbcUrl, database.user(), database.password());
    }

    private long count(String sql) throws SQLException {
        try (Connection connection = connect(); Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery(sql)) {
            rows.next();
            return rows.getLong(1);
        }
    }

    /** Waits until nothing is pending (polled every 10 ms) and returns how long that took. */
    /**
     * Where the database runs without autovacuum (this machine kind's PostgreSQL, docs/pitfalls.md), the queue table
     * keeps every dead row of the warm-up's marks, which a production database would have vacuumed away: it is
     * vacuumed here, so that what follows measures the engine and not a table no production one has. Says so.
     */
    private String vacuumedWithoutAutovacuum() throws SQLException {
        try (Connection connection = connect(); Statement statement = connection.createStatement()) {
            if (!connection.getMetaData().getDatabaseProductName().equals("PostgreSQL")) {
                return "";
            }
            try (ResultSet on = statement.executeQuery("SHOW autovacuum")) {
                on.next();
                if (on.getString(1).equals("on")) {
                    return "";
                }
            }
            connection.setAutoCommit(true);
            statement.execute("VACUUM (ANALYZE) projection_pending");
            return "; autovacuum is off on this database: projection_pending vacuumed, as autovacuum would have";
        }
    }

    private Duration waitUntilDrained() throws Exception {
        return waitUntilNone("TRUE");
    }

    /** Waits until no pending mark meets {@code condition} (polled every 10 ms); returns how long that took. */
    private Duration waitUntilNone(String condition) throws Exception {
        long start = System.nanoTime();
        if (count("SELECT COUNT(*) FROM information_schema.tables WHERE table_name = 'projection_pending'") == 0) {
            return Duration.ZERO; // the engine off (the synchronous bound): no queue was made
        }
        try (Connection connection = connect(); Statement statement = connection.createStatement()) {
            waitFor(() -> {
                try (ResultSet rows = statement.executeQuery(
                        "SELECT EXISTS (SELECT 1 FROM projection_pending WHERE " + condition + ")")) {
                    rows.next();
                    return !rows.getBoolean(1);
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
        }
        return Duration.ofNanos(System.nanoTime() - start);
    }

    private void checkExact(String when) throws SQLException {
        assertThat(count(DemoReadModels.ORDER_SEARCH_WRONG)).as("order_search rows unlike the write tables " + when)
                .isZero();
        assertThat(count(DemoReadModels.CUSTOMER_STATS_WRONG)).as("customer_stats rows unlike the write tables " + when)
                .isZero();
    }

    private static void waitFor(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofMinutes(30).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("gave up waiting after 30 minutes");
            }
            Thread.sleep(10);
        }
    }

    private static BooleanSupplier elapsed(long start, Duration duration) {
        return () -> System.nanoTime() - start >= duration.toNanos();
    }

    private static String order(String customer) {
        return "{\"customer\":\"" + customer + "\",\"lines\":[{\"sku\":\"sku-1\",\"quantity\":2,\"price\":3.50}]}";
    }

    private static long id(String body) {
        Matcher matcher = ID.matcher(body);
        if (!matcher.find()) {
            throw new IllegalStateException("no id in " + body);
        }
        return Long.parseLong(matcher.group(1));
    }

    private String post(ServerProcess server, String path, String json) throws IOException, InterruptedException {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(server.url(path)))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json)).build(),
                HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() / 100 != 2) {
            throw new IllegalStateException("POST " + path + ": " + response.statusCode() + " " + response.body());
        }
        return response.body();
    }

    private int get(ServerProcess server, String path) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create(server.url(path))).build(),
                HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    private String getBody(ServerProcess server, String path) {
        try {
            return http.send(HttpRequest.newBuilder(URI.create(server.url(path))).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static double millis(List<Long> nanos, double quantile) {
        List<Long> sorted = new ArrayList<>(nanos);
        sorted.sort(null);
        return sorted.isEmpty() ? Double.NaN : sorted.get((int) Math.round((sorted.size() - 1) * quantile)) / 1e6;
    }

    private static String loadAverage() {
        try {
            String[] fields = Files.readString(Path.of("/proc/loadavg")).split(" ");
            return fields[0] + " " + fields[1] + " " + fields[2];
        } catch (IOException e) {
            return "unknown";
        }
    }

    /** A line of the report, written to {@link #REPORT} at once: a run cut short keeps what it measured. */
    private void line(String format, Object... args) {
        String line = String.format(Locale.ROOT, format, args) + "\n";
        report.append(line);
        try {
            Files.writeString(REPORT, line, java.nio.file.StandardOpenOption.CREATE,
                    java.nio.file.StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
