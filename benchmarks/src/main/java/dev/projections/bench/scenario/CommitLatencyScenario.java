package dev.projections.bench.scenario;

import com.zaxxer.hikari.HikariDataSource;
import dev.projections.MarkKey;
import dev.projections.RefreshListener;
import dev.projections.RefreshOutcome;
import dev.projections.bench.BenchContext;
import dev.projections.bench.ScenarioReport;
import dev.projections.bench.Series;
import dev.projections.bench.TextTable;
import dev.projections.bench.db.StatementCounting;
import dev.projections.bench.db.StatementTimeline;
import dev.projections.refresh.JdbcTransactions;
import dev.projections.bench.engine.EngineInstance;
import dev.projections.bench.orm.BenchMarkSink;
import dev.projections.bench.orm.OrmUnit;
import dev.projections.bench.workload.OrderSearchProjection;
import dev.projections.bench.workload.OrderSearchSql;
import dev.projections.bench.workload.OrderWorkload;
import dev.projections.bench.workload.SetBasedOrderSearchProjection;
import dev.projections.config.Settings;
import jakarta.persistence.EntityManager;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.Locale;
import java.util.concurrent.atomic.LongAdder;
import javax.sql.DataSource;

/**
 * 4. How long after a commit the read model shows it, at light load: one marked business transaction at a time, a
 * pause between them, the hand-off path. Timed from just before the commit to the engine's {@code refreshed} callback
 * for the order's key, which comes after the refresh's transaction committed. The bound is the same commit followed
 * on the same thread by the refresh statement in a transaction of its own: what a synchronous refresh would cost.
 */
public final class CommitLatencyScenario implements Scenario {

    private static final long PAUSE_MS = 10;
    private static final long WAIT_MS = 30_000;

    @Override
    public int number() {
        return 4;
    }

    @Override
    public ScenarioReport run(BenchContext context) throws Exception {
        int samples = context.options().samples();
        ScenarioReport report = new ScenarioReport(("4. Commit → read model latency at light load: %,d commits per run,"
                + " %d ms apart, ms, %d run(s)").formatted(samples, PAUSE_MS, context.runs()));
        Map<MarkKey, CompletableFuture<Long>> waiting = new ConcurrentHashMap<>();
        RefreshListener listener = (key, outcome, took) -> {
            CompletableFuture<Long> waiter = waiting.get(key);
            if (waiter != null && outcome != RefreshOutcome.FAILED) {
                waiter.complete(System.nanoTime());
            }
        };
        BenchMarkSink sink = BenchMarkSink.install(context.store().queue(), context.clock());
        Series engineP50 = new Series();
        Series engineP99 = new Series();
        Series boundP50 = new Series();
        Series boundP99 = new Series();
        Series roundTripP50 = new Series();
        CommitPhases phases = new CommitPhases();
        context.workload().clearQueueAndReadModel();
        context.workload().fillReadModel();
        try (OrmUnit plain = OrmUnit.plain(context.database()); OrmUnit marked = OrmUnit.marked(context.database());
             EngineInstance instance = EngineInstance.start(context.database(), context.store(), context.clock(),
                     new SetBasedOrderSearchProjection(), Settings.defaults().workers(), listener, true,
                     new LongAdder());
             HikariDataSource boundPool = context.database().pool("bound", 2)) {
            sink.afterCommit(instance::committed);
            // through the same proxies as the business units' and the engine's, so that a timeline sees them too
            JdbcTransactions boundTransactions = new JdbcTransactions(
                    StatementCounting.wrap(boundPool, new LongAdder()));
            Set<Long> touched = new TreeSet<>();
            // a first round untimed, so neither side is measured while the JIT compiles it
            int warmUp = context.options().warmUp() ? Math.min(100, samples) : 0;
            viaEngine(marked, context.workload(), waiting, new Random(1), warmUp, touched, null);
            viaSynchronousRefresh(plain, boundTransactions, context.workload(), new Random(2), warmUp, touched, null);
            for (int run = 1; run <= context.runs(); run++) {
                List<Double> ours = viaEngine(marked, context.workload(), waiting, new Random(run * 17L), samples,
                        touched, null);
                List<Double> bound = viaSynchronousRefresh(plain, boundTransactions, context.workload(),
                        new Random(run * 19L), samples, touched, null);
                engineP50.add(Series.quantile(ours, 0.5));
                engineP99.add(Series.quantile(ours, 0.99));
                boundP50.add(Series.quantile(bound, 0.5));
                boundP99.add(Series.quantile(bound, 0.99));
                roundTripP50.add(Series.quantile(roundTrips(boundPool, samples), 0.5));
            }
            // one run more, each commit timed statement by statement: where the engine's time goes
            viaEngine(marked, context.workload(), waiting, new Random(23), samples, touched, phases);
            viaSynchronousRefresh(plain, boundTransactions, context.workload(), new Random(29), samples, touched,
                    phases);
            instance.awaitQuiet(WAIT_MS);
            context.checkDrained(report, "the latency runs", touched);
        } finally {
            sink.refreshOff();
            context.workload().vacuum(); // the updated lines' dead rows, before the next scenario
        }
        TextTable table = new TextTable(1, "percentile", "engine (hand-off) ms", "bound (sync refresh) ms",
                "engine/bound");
        table.row("p50", engineP50.render("%.2f"), boundP50.render("%.2f"), Series.ratio(engineP50, boundP50));
        table.row("p99", engineP99.render("%.2f"), boundP99.render("%.2f"), Series.ratio(engineP99, boundP99));
        report.table(table);
        report.figures(engineP50, engineP99, boundP50, boundP99);
        report.note("transaction: update one random line's quantity (Hibernate, marked unit; the bound uses the");
        report.note("unmarked unit). Engine: until RefreshListener.refreshed for the order's key, which follows the");
        report.note("refresh's commit; a reader polling order_search would see the row at that commit, plus its own");
        report.note("polling interval. Bound: commit, then the same refresh statement in a new transaction.");
        report.note(String.format(Locale.ROOT, "one round trip (SELECT 1, 10 ms apart): p50 %.2f ms; engine − "
                + "bound at p50: %.1f round trips,", roundTripP50.median(),
                (engineP50.median() - boundP50.median()) / roundTripP50.median()));
        report.note("where the engine makes 4 the bound does not (the marks' upsert, the claim and its commit, the");
        report.note("ack). Where the time goes, from one more run of as many commits timed statement by statement:");
        if (phases.measured()) {
            report.table(phases.table());
        }
        report.note(phases.leftOut());
        return report;
    }

    /** Latencies in ms: just before the marked commit → the refreshed callback for the order's key. */
    static List<Double> viaEngine(OrmUnit marked, OrderWorkload workload,
                                          Map<MarkKey, CompletableFuture<Long>> waiting, Random random, int samples,
                                          Set<Long> touched, CommitPhases phases) throws Exception {
        List<Double> latencies = new ArrayList<>(samples);
        for (int i = 0; i < samples; i++) {
            long lineId = 1 + random.nextInt(workload.lines());
            long orderId = orderOf(lineId);
            MarkKey key = new MarkKey(OrderSearchProjection.NAME, "", Long.toString(orderId));
            CompletableFuture<Long> refreshed = new CompletableFuture<>();
            waiting.put(key, refreshed);
            long start;
            EntityManager em = marked.entityManagers().createEntityManager();
            try {
                em.getTransaction().begin();
                marked.bumpQuantity(em, lineId);
                if (phases != null) {
                    StatementTimeline.arm();
                }
                start = System.nanoTime();
                em.getTransaction().commit();
            } finally {
                em.close();
            }
            try {
                long end = refreshed.get(WAIT_MS, TimeUnit.MILLISECONDS);
                latencies.add((end - start) / 1e6);
                if (phases != null) {
                    phases.engineCommit(StatementTimeline.disarm(), start, end);
                }
            } finally {
                waiting.remove(key);
            }
            touched.add(orderId);
            Thread.sleep(PAUSE_MS);
        }
        return latencies;
    }

    /** Latencies in ms: just before the unmarked commit → the synchronous refresh's commit. */
    private static List<Double> viaSynchronousRefresh(OrmUnit plain, JdbcTransactions transactions,
                                                      OrderWorkload workload, Random random, int samples,
                                                      Set<Long> touched, CommitPhases phases) throws Exception {
        List<Double> latencies = new ArrayList<>(samples);
        for (int i = 0; i < samples; i++) {
            long lineId = 1 + random.nextInt(workload.lines());
            long orderId = orderOf(lineId);
            long start;
            EntityManager em = plain.entityManagers().createEntityManager();
            try {
                em.getTransaction().begin();
                plain.bumpQuantity(em, lineId);
                if (phases != null) {
                    StatementTimeline.arm();
                }
                start = System.nanoTime();
                em.getTransaction().commit();
            } finally {
                em.close();
            }
            transactions.inNewTransaction(Duration.ZERO, connection -> {
                OrderSearchSql.refreshOne(connection, orderId);
                return null;
            });
            long end = System.nanoTime();
            latencies.add((end - start) / 1e6);
            if (phases != null) {
                phases.boundCommit(StatementTimeline.disarm(), start, end);
            }
            touched.add(orderId);
            Thread.sleep(PAUSE_MS);
        }
        return latencies;
    }

    /** Latencies in ms of one {@code SELECT 1} at a time on an idle connection, paced like the commits. */
    private static List<Double> roundTrips(DataSource pool, int samples) throws Exception {
        List<Double> latencies = new ArrayList<>(samples);
        try (Connection connection = pool.getConnection();
             PreparedStatement select = connection.prepareStatement("SELECT 1")) {
            for (int i = 0; i < samples; i++) {
                long start = System.nanoTime();
                try (ResultSet rows = select.executeQuery()) {
                    rows.next();
                }
                latencies.add((System.nanoTime() - start) / 1e6);
                Thread.sleep(PAUSE_MS);
            }
        }
        return latencies;
    }

    private static long orderOf(long lineId) {
        return (lineId - 1) / OrderWorkload.LINES_PER_ORDER + 1;
    }
}
