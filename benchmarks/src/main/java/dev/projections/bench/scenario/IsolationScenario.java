package dev.projections.bench.scenario;

import dev.projections.MarkKey;
import dev.projections.RefreshListener;
import dev.projections.RefreshOutcome;
import dev.projections.bench.BenchContext;
import dev.projections.bench.ScenarioReport;
import dev.projections.bench.Series;
import dev.projections.bench.TextTable;
import dev.projections.bench.engine.EngineInstance;
import dev.projections.bench.orm.BenchMarkSink;
import dev.projections.bench.orm.OrmUnit;
import dev.projections.bench.workload.SetBasedOrderSearchProjection;
import dev.projections.config.Settings;
import dev.projections.store.PendingQueue;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * 7. Isolation (docs/design.md D45): scenario 4's light-load latency of {@code order-search}, measured twice in each
 * run on one instance deploying two projections — once with the other projection idle, once with 1,000 of its marks
 * due and each of its refreshes taking 200 ms per key (a projection that calls a slow service). The slow one may hold
 * {@code workers − 1} drainers; order-search's commits are served by the one left.
 */
public final class IsolationScenario implements Scenario {

    static final String SLOW = "slow-index";
    private static final int SLOW_MARKS = 1_000;
    private static final long SLOW_MILLIS_PER_KEY = 200;

    /** Waits 200 ms per key while {@link #slow} is set, as a call to a slow service would; then at once. */
    static final class SlowIndex implements dev.projections.Projection {
        volatile boolean slow = true;

        @Override
        public String name() {
            return SLOW;
        }

        @Override
        public void refresh(String id) throws Exception {
            refreshAll(List.of(id));
        }

        @Override
        public void refreshAll(List<String> ids) throws Exception {
            for (int i = 0; i < ids.size() && slow; i++) {
                Thread.sleep(SLOW_MILLIS_PER_KEY);
            }
        }
    }

    @Override
    public int number() {
        return 7;
    }

    @Override
    public ScenarioReport run(BenchContext context) throws Exception {
        int samples = context.options().samples();
        int workers = Settings.defaults().workers();
        ScenarioReport report = new ScenarioReport(("7. Isolation: order-search's commit → read model latency beside a"
                + " projection whose refreshes take %d ms per key (%,d marks due) and beside it idle: %,d commits"
                + " each, ms, %d run(s)").formatted(SLOW_MILLIS_PER_KEY, SLOW_MARKS, samples, context.runs()));
        Map<MarkKey, CompletableFuture<Long>> waiting = new ConcurrentHashMap<>();
        RefreshListener listener = (key, outcome, took) -> {
            CompletableFuture<Long> waiter = waiting.get(key);
            if (waiter != null && outcome != RefreshOutcome.FAILED) {
                waiter.complete(System.nanoTime());
            }
        };
        BenchMarkSink sink = BenchMarkSink.install(context.store().queue(), context.clock());
        Series idleP50 = new Series();
        Series idleP99 = new Series();
        Series slowP50 = new Series();
        Series slowP99 = new Series();
        Series slowBusy = new Series();
        context.workload().clearQueueAndReadModel();
        context.workload().fillReadModel();
        SlowIndex slowIndex = new SlowIndex();
        try (OrmUnit marked = OrmUnit.marked(context.database());
             EngineInstance instance = EngineInstance.start(context.database(), context.store(), context.clock(),
                     List.of(new SetBasedOrderSearchProjection(), slowIndex), workers, listener, false, null)) {
            sink.afterCommit(instance::committed);
            Set<Long> touched = new TreeSet<>();
            int warmUp = context.options().warmUp() ? Math.min(100, samples) : 0;
            CommitLatencyScenario.viaEngine(marked, context.workload(), waiting, new Random(1), warmUp, touched, null);
            for (int run = 1; run <= context.runs(); run++) {
                List<Double> idle = CommitLatencyScenario.viaEngine(marked, context.workload(), waiting,
                        new Random(run * 31L), samples, touched, null);
                slowIndex.slow = true;
                markSlowBacklog(instance, context);
                instance.sweep(); // as the sweep would find them: the drainers the slow one may have take them
                awaitBusy(instance, workers - 1);
                List<Double> beside = CommitLatencyScenario.viaEngine(marked, context.workload(), waiting,
                        new Random(run * 37L), samples, touched, null);
                slowBusy.add(instance.handoff().busy(SLOW));
                slowIndex.slow = false; // the rest of its backlog at once, before the next run
                instance.awaitQuiet(120_000);
                idleP50.add(Series.quantile(idle, 0.5));
                idleP99.add(Series.quantile(idle, 0.99));
                slowP50.add(Series.quantile(beside, 0.5));
                slowP99.add(Series.quantile(beside, 0.99));
            }
            context.checkDrained(report, "the isolation runs", touched);
        } finally {
            sink.refreshOff();
            context.workload().vacuum();
        }
        TextTable table = new TextTable(1, "percentile", "other projection idle ms", "other slow ms", "slow/idle");
        table.row("p50", idleP50.render("%.2f"), slowP50.render("%.2f"), Series.ratio(slowP50, idleP50));
        table.row("p99", idleP99.render("%.2f"), slowP99.render("%.2f"), Series.ratio(slowP99, idleP99));
        report.table(table);
        report.figures(idleP50, idleP99, slowP50, slowP99);
        report.note("one instance, projection.workers = " + workers + "; " + SLOW + " holds at most workers − 1 = "
                + (workers - 1) + " drainers (its default cap; it held " + slowBusy.render("%.0f") + " at the end of"
                + " each slow run)");
        report.note("order-search's commits: scenario 4's transaction (update one line's quantity), "
                + "10 ms apart, timed to its refreshed callback");
        return report;
    }

    private static void markSlowBacklog(EngineInstance instance, BenchContext context) throws Exception {
        List<MarkKey> keys = new ArrayList<>(SLOW_MARKS);
        for (int i = 0; i < SLOW_MARKS; i++) {
            keys.add(new MarkKey(SLOW, "", String.format("%05d", i)));
        }
        instance.transactions().inNewTransaction(Duration.ofSeconds(30), connection -> {
            context.store().queue().upsert(connection, keys, PendingQueue.LIVE, context.clock().instant());
            return null;
        });
    }

    /** Until the slow projection has its drainers: the measurement is of the state the scenario names. */
    private static void awaitBusy(EngineInstance instance, int drainers) throws InterruptedException {
        long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (instance.handoff().busy(SLOW) < drainers) {
            if (System.nanoTime() > until) {
                throw new IllegalStateException(SLOW + " has " + instance.handoff().busy(SLOW) + " drainers, not "
                        + drainers);
            }
            Thread.sleep(5);
        }
    }
}
