package dev.projections.bench.scenario;

import com.zaxxer.hikari.HikariDataSource;
import dev.projections.CommitCapture;
import dev.projections.MarkKey;
import dev.projections.RefreshListener;
import dev.projections.RefreshOutcome;
import dev.projections.RefreshWait;
import dev.projections.bench.BenchContext;
import dev.projections.bench.ScenarioReport;
import dev.projections.bench.Series;
import dev.projections.bench.TextTable;
import dev.projections.bench.engine.EngineInstance;
import dev.projections.bench.orm.BenchMarkSink;
import dev.projections.bench.orm.OrmUnit;
import dev.projections.bench.workload.OrderSearchProjection;
import dev.projections.bench.workload.OrderWorkload;
import dev.projections.bench.workload.SetBasedOrderSearchProjection;
import dev.projections.config.Settings;
import dev.projections.freshness.RefreshWaits;
import jakarta.persistence.EntityManager;
import java.sql.Connection;
import java.time.Clock;
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
import java.util.concurrent.atomic.LongAdder;

/**
 * 8. What read-your-writes costs a request (docs/contract.md §14): the same light load as scenario 4, three ways in
 * turn. Without a wait a request pays its commit; with {@code await} it pays until the queue shows its key refreshed;
 * the refresh itself ends at the engine's {@code refreshed} callback (scenario 4's figure). The wait's own cost is
 * its time beyond that callback: the wake-up and one read of the queue by primary key.
 */
public final class ReadYourWritesScenario implements Scenario {

    private static final long PAUSE_MS = 10;
    private static final long WAIT_MS = 30_000;

    @Override
    public int number() {
        return 8;
    }

    @Override
    public ScenarioReport run(BenchContext context) throws Exception {
        int samples = context.options().samples();
        ScenarioReport report = new ScenarioReport(("8. Read your writes: commit → response with and without the wait,"
                + " %,d commits per run, %d ms apart, ms, %d run(s)").formatted(samples, PAUSE_MS, context.runs()));
        Map<MarkKey, CompletableFuture<Long>> waiting = new ConcurrentHashMap<>();
        RefreshWaits[] waits = new RefreshWaits[1];
        RefreshListener listener = (key, outcome, took) -> {
            if (waits[0] != null) {
                waits[0].refreshed(key, outcome);
            }
            CompletableFuture<Long> waiter = waiting.get(key);
            if (waiter != null && outcome != RefreshOutcome.FAILED) {
                waiter.complete(System.nanoTime());
            }
        };
        BenchMarkSink sink = BenchMarkSink.install(context.store().queue(), context.clock());
        Series commitP50 = new Series();
        Series commitP99 = new Series();
        Series awaitP50 = new Series();
        Series awaitP99 = new Series();
        Series refreshedP50 = new Series();
        Series refreshedP99 = new Series();
        context.workload().clearQueueAndReadModel();
        context.workload().fillReadModel();
        Set<Long> touched = new TreeSet<>();
        long[] notRefreshed = new long[1];
        try (OrmUnit marked = OrmUnit.marked(context.database());
             EngineInstance instance = EngineInstance.start(context.database(), context.store(), context.clock(),
                     new SetBasedOrderSearchProjection(), Settings.defaults().workers(), listener, true,
                     new LongAdder());
             HikariDataSource checks = context.database().pool("await-checks", 2)) {
            waits[0] = new RefreshWaits(Clock.systemUTC(), Settings.defaults().awaits(), Duration.ZERO,
                    (keys, committedAt, margin) -> {
                        try (Connection connection = checks.getConnection()) {
                            return context.store().checks().stillPending(connection, keys, committedAt, margin);
                        }
                    }, () -> false, runnable -> {
                        Thread thread = new Thread(runnable);
                        thread.setDaemon(true);
                        return thread;
                    });
            RefreshWaits refreshWaits = waits[0];
            sink.afterCommit(keys -> {
                refreshWaits.committed(keys);
                instance.committed(keys);
            });
            int warmUp = context.options().warmUp() ? Math.min(100, samples) : 0;
            commits(marked, context.workload(), refreshWaits, null, new Random(1), warmUp, touched, notRefreshed);
            commits(marked, context.workload(), refreshWaits, null, new Random(2), warmUp, touched, notRefreshed);
            for (int run = 1; run <= context.runs(); run++) {
                // the commit alone: the request returns at once, its refresh follows (waited for untimed)
                List<Double> commit = commits(marked, context.workload(), null, waiting, new Random(run * 31L), samples,
                        touched, notRefreshed);
                List<Double> awaited = commits(marked, context.workload(), refreshWaits, null, new Random(run * 37L),
                        samples, touched, notRefreshed);
                List<Double> refreshed = CommitLatencyScenario.viaEngine(marked, context.workload(), waiting,
                        new Random(run * 41L), samples, touched, null);
                commitP50.add(Series.quantile(commit, 0.5));
                commitP99.add(Series.quantile(commit, 0.99));
                awaitP50.add(Series.quantile(awaited, 0.5));
                awaitP99.add(Series.quantile(awaited, 0.99));
                refreshedP50.add(Series.quantile(refreshed, 0.5));
                refreshedP99.add(Series.quantile(refreshed, 0.99));
            }
            instance.awaitQuiet(WAIT_MS);
            context.checkDrained(report, "the read-your-writes runs", touched);
        } finally {
            sink.refreshOff();
            context.workload().vacuum();
        }
        TextTable table = new TextTable(1, "percentile", "commit only ms", "commit + await ms",
                "commit → refreshed ms", "await ÷ refreshed", "await ÷ commit only");
        table.row("p50", commitP50.render("%.2f"), awaitP50.render("%.2f"), refreshedP50.render("%.2f"),
                Series.ratio(awaitP50, refreshedP50), Series.ratio(awaitP50, commitP50));
        table.row("p99", commitP99.render("%.2f"), awaitP99.render("%.2f"), refreshedP99.render("%.2f"),
                Series.ratio(awaitP99, refreshedP99), Series.ratio(awaitP99, commitP99));
        report.table(table);
        report.figures(commitP50, commitP99, awaitP50, awaitP99, refreshedP50, refreshedP99);
        report.note("transaction: update one random line's quantity (Hibernate, marked unit), one at a time.");
        report.note("commit only: just before the commit → the commit returned (what a request pays without");
        report.note("waiting). commit + await: → Projections.await of the commit's key returned REFRESHED (the");
        report.note("refresh here wakes the waiter, which reads the queue by primary key). commit → refreshed: →");
        report.note("the engine's refreshed callback for the key, after the refresh committed (scenario 4).");
        report.note("waits that did not end REFRESHED: " + notRefreshed[0]);
        return report;
    }

    /**
     * Latencies in ms from just before each commit: to the commit's return without {@code waits}, else to the end of
     * the wait for its key. Without a wait, the refresh is awaited untimed through {@code waiting} before the next.
     */
    private static List<Double> commits(OrmUnit marked, OrderWorkload workload, RefreshWaits waits,
                                        Map<MarkKey, CompletableFuture<Long>> waiting, Random random, int samples,
                                        Set<Long> touched, long[] notRefreshed) throws Exception {
        List<Double> latencies = new ArrayList<>(samples);
        for (int i = 0; i < samples; i++) {
            long lineId = 1 + random.nextInt(workload.lines());
            long orderId = (lineId - 1) / OrderWorkload.LINES_PER_ORDER + 1;
            MarkKey key = new MarkKey(OrderSearchProjection.NAME, "", Long.toString(orderId));
            CompletableFuture<Long> refreshed = new CompletableFuture<>();
            if (waiting != null) {
                waiting.put(key, refreshed);
            }
            long start;
            long end;
            CommitCapture capture = waits == null ? null : waits.capture();
            try {
                EntityManager em = marked.entityManagers().createEntityManager();
                try {
                    em.getTransaction().begin();
                    marked.bumpQuantity(em, lineId);
                    start = System.nanoTime();
                    em.getTransaction().commit();
                } finally {
                    em.close();
                }
                end = System.nanoTime();
                if (capture != null) {
                    RefreshWait wait = capture.await(Duration.ofMillis(WAIT_MS));
                    end = System.nanoTime();
                    if (!wait.refreshed()) {
                        notRefreshed[0]++;
                    }
                }
            } finally {
                if (capture != null) {
                    capture.close();
                }
            }
            latencies.add((end - start) / 1e6);
            if (waiting != null) {
                try {
                    refreshed.get(WAIT_MS, TimeUnit.MILLISECONDS);
                } finally {
                    waiting.remove(key);
                }
            }
            touched.add(orderId);
            Thread.sleep(PAUSE_MS);
        }
        return latencies;
    }
}
