package dev.projections.bench.scenario;

import dev.projections.RebuildProgress;
import dev.projections.RebuildScope;
import dev.projections.RefreshListener;
import dev.projections.bench.BenchContext;
import dev.projections.bench.ScenarioReport;
import dev.projections.bench.Series;
import dev.projections.bench.TextTable;
import dev.projections.bench.db.QueueVacuum;
import dev.projections.bench.engine.CpuMeter;
import dev.projections.bench.engine.EngineInstance;
import dev.projections.bench.engine.RebuildRunRow;
import dev.projections.bench.engine.ParallelLoop;
import dev.projections.bench.workload.OrderSearchProjection;
import dev.projections.bench.workload.SetBasedOrderSearchProjection;
import dev.projections.config.Settings;
import dev.projections.store.RebuildPartition;
import dev.projections.store.RebuildHistory;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * 6. A rebuild of every order run four ways: in 1 or 4 partitions, stepped by the drainers of 1 or 2 instances (each
 * its own {@link EngineInstance}: pool, hand-off and drainers, on the same database, as in scenario 5). Per way: ids
 * marked per second (start of the run until every partition is exhausted) and ids per second until nothing is pending
 * (the run finished), each also as a ratio to 1 partition on 1 instance, taken run by run. Every run must end
 * FINISHED with each partition having marked exactly the orders of its range, so {@code marked} is the number of ids
 * (no partition overlaps another or leaves a gap), and the read model must be exact.
 */
public final class PartitionedRebuildScenario implements Scenario {

    /** One way to run the rebuild. */
    private record Way(int partitions, int instances) {
    }

    private static final List<Way> WAYS = List.of(new Way(1, 1), new Way(4, 1), new Way(1, 2), new Way(4, 2));

    /** The untimed warm-up rebuilds the orders up to this id, in 4 partitions on 2 instances: every code path. */
    private static final int WARM_UP_IDS = 20_000;

    /** A run that has not finished by then is stuck, not slow. */
    private static final Duration GIVE_UP = Duration.ofMinutes(30);

    private static final String PARTITION_ORDERS = "SELECT COUNT(*) FROM orders WHERE id > ? AND id <= ?";

    private final String label;

    public PartitionedRebuildScenario() {
        this("");
    }

    /** {@code label} tells a variant apart in the title (the million-order one). */
    public PartitionedRebuildScenario(String label) {
        this.label = label;
    }

    @Override
    public int number() {
        return 6;
    }

    @Override
    public ScenarioReport run(BenchContext context) throws Exception {
        int ids = context.workload().orders();
        int workers = Settings.defaults().workers();
        ScenarioReport report = new ScenarioReport(("6. Partitioned rebuild%s: %,d ids, 1 or 4 partitions on 1 or 2 "
                + "instances of %d drainers, ids/s, %d run(s)").formatted(label, ids, workers, context.runs()));
        List<Series> marking = new ArrayList<>();
        List<Series> total = new ArrayList<>();
        List<Series> takeovers = new ArrayList<>();
        int vacuums = 0;
        // CPU per way: [JVM ms per 1,000 ids, PostgreSQL ms per 1,000 ids, CPUs the two kept busy, machine busy, iowait]
        List<Series[]> cpu = new ArrayList<>();
        for (int w = 0; w < WAYS.size(); w++) {
            marking.add(new Series());
            total.add(new Series());
            takeovers.add(new Series());
            cpu.add(new Series[] {new Series(), new Series(), new Series(), new Series(), new Series()});
        }
        if (context.options().warmUp()) {
            // else the first way measured would also pay for loading and compiling what the others find ready
            context.workload().clearQueueAndReadModel();
            rebuild(context, new Way(4, 2), RebuildScope.idRange(null, Integer.toString(Math.min(WARM_UP_IDS, ids))),
                    workers);
        }
        for (int run = 1; run <= context.runs(); run++) {
            // the ways take turns within a run, so a slow spell of the machine touches all of them alike
            for (int w = 0; w < WAYS.size(); w++) {
                Way way = WAYS.get(w);
                context.workload().clearQueueAndReadModel();
                Timing took;
                try {
                    took = rebuild(context, way, RebuildScope.everything(), workers);
                } catch (IllegalStateException e) {
                    // stuck, or a drainer failed: the other ways are still worth their figures
                    report.problem("%d partition(s) on %d instance(s), run %d: %s".formatted(way.partitions(),
                            way.instances(), run, e.getMessage()));
                    marking.get(w).add(Double.NaN);
                    total.get(w).add(Double.NaN);
                    for (Series figure : cpu.get(w)) {
                        figure.add(Double.NaN);
                    }
                    continue;
                }
                marking.get(w).add(BenchContext.perSecond(ids, took.exhausted()));
                total.get(w).add(BenchContext.perSecond(ids, took.done()));
                takeovers.get(w).add(checkRun(context, way, took.runId(), report, run));
                vacuums += took.vacuums();
                CpuMeter.Usage used = took.cpu();
                Series[] figures = cpu.get(w);
                figures[0].add(CpuMeter.Usage.millisPer(used.jvmSeconds(), ids, 1_000));
                figures[1].add(CpuMeter.Usage.millisPer(used.databaseSeconds(), ids, 1_000));
                figures[2].add(used.benchCpusBusy());
                figures[3].add(used.machineCpusBusy());
                figures[4].add(used.machineCpusIowait());
                context.checkDrained(report, "%d partition(s) on %d instance(s) (run %d)"
                        .formatted(way.partitions(), way.instances(), run));
            }
        }
        context.workload().clearQueueAndReadModel();
        TextTable table = new TextTable(2, "partitions", "instances", "marked ids/s", "÷ 1×1", "ids/s to nothing pending",
                "÷ 1×1");
        for (int w = 0; w < WAYS.size(); w++) {
            Way way = WAYS.get(w);
            table.row(Integer.toString(way.partitions()), Integer.toString(way.instances()),
                    marking.get(w).render("%,.0f"), Series.ratio(marking.get(w), marking.get(0)),
                    total.get(w).render("%,.0f"), Series.ratio(total.get(w), total.get(0)));
        }
        report.table(table);
        TextTable cpuTable = new TextTable(2, "partitions", "instances", "JVM CPU ms/1,000 ids",
                "PostgreSQL CPU ms/1,000 ids", "CPUs busy: bench", "machine", "iowait");
        for (int w = 0; w < WAYS.size(); w++) {
            Way way = WAYS.get(w);
            Series[] figures = cpu.get(w);
            cpuTable.row(Integer.toString(way.partitions()), Integer.toString(way.instances()),
                    figures[0].render("%,.0f"), figures[1].render("%,.0f"), figures[2].render("%.2f"),
                    figures[3].render("%.2f"), figures[4].render("%.2f"));
        }
        report.table(cpuTable);
        for (int w = 0; w < WAYS.size(); w++) {
            report.figures(marking.get(w), total.get(w));
        }
        long lapsed = takeovers.stream().flatMap(s -> s.values().stream()).mapToLong(Double::longValue).sum();
        report.note("engine: the rebuild operation's start (bounds: MIN..MAX of the order ids cut evenly),");
        report.note("then every drainer of every instance loops drain(); a step leases one partition and marks");
        report.note("ids(cursor, %,d, its range) when nothing is due or the run's marks run short."
                .formatted(Settings.defaults().rebuildPageSize()));
        report.note(("VACUUM ANALYZE projection_pending every %d s while a run goes, as autovacuum tuned for the queue")
                .formatted(QueueVacuum.EVERY.toSeconds()));
        report.note("would (docs/guide/operations.md; the server runs without autovacuum, docs/pitfalls.md #29): %d vacuums in all."
                .formatted(vacuums));
        report.note("marked ids/s: start → every partition exhausted (partitionsDone = partitions); to nothing pending:");
        report.note("start → the run FINISHED and the queue empty. Read model empty at the start; set-based refreshAll.");
        report.note("Each run: marked = ids, each partition marked exactly its range's orders, read model exact;");
        report.note("÷ 1×1: the figure divided by that of 1 partition on 1 instance, run by run. Partition leases taken");
        report.note("over after lapsing (a step that never ended): " + lapsed + ".");
        report.note("CPU, start → nothing pending: this JVM's and the database's backends' (/proc), per 1,000 ids;");
        report.note("CPUs busy: on average over the run, the bench's two, the whole machine's (any work) and in iowait.");
        return report;
    }

    /**
     * A run, nanoseconds from its start until every partition was exhausted and until nothing was pending, and the
     * CPU used until then.
     */
    private record Timing(String runId, long exhausted, long done, CpuMeter.Usage cpu, int vacuums) {
    }

    private static Timing rebuild(BenchContext context, Way way, RebuildScope scope, int workers) throws Exception {
        List<EngineInstance> instances = new ArrayList<>(way.instances());
        try {
            for (int i = 0; i < way.instances(); i++) {
                instances.add(EngineInstance.start(context.database(), context.store(), context.clock(),
                        new SetBasedOrderSearchProjection(), workers, RefreshListener.NONE, true, null));
            }
            EngineInstance first = instances.get(0);
            AtomicLong exhaustedAt = new AtomicLong();
            CpuMeter meter = new CpuMeter(context.database());
            CpuMeter.Sample before = meter.sample();
            long start = System.nanoTime();
            // as an operator starts one: the projection, scope and partitions checked, the bounds read (the projection
            // reads in the engine's transaction of its thread, as in the server it reads in the operator's), one commit
            String runId = first.transactions().inNewTransaction(Duration.ofSeconds(10), connection ->
                    first.operations().rebuilds().start(OrderSearchProjection.NAME, "", scope, way.partitions(),
                            "benchmark"));
            Thread watcher = new Thread(() -> RebuildRunRow.watchAllMarked(context, runId, exhaustedAt), "partitions-watch");
            watcher.setDaemon(true);
            watcher.start();
            QueueVacuum vacuum = QueueVacuum.start(context.database());
            long done;
            CpuMeter.Usage cpu;
            try {
                ParallelLoop.run(way.instances() * workers, "partitioned-rebuild", i -> {
                    EngineInstance instance = instances.get(i % instances.size());
                    return instance.drainerStep(() -> {
                        if (System.nanoTime() - start > GIVE_UP.toNanos()) {
                            throw new IllegalStateException("rebuild run " + runId + " not finished after " + GIVE_UP);
                        }
                        return instance.engine().hasDueWork() || RebuildProgress.RUNNING.equals(RebuildRunRow.state(instance, runId));
                    });
                });
                done = System.nanoTime() - start;
                cpu = meter.since(before);
            } finally {
                vacuum.close();
            }
            watcher.join(10_000);
            return new Timing(runId, exhaustedAt.get() == 0 ? done : exhaustedAt.get() - start, done, cpu,
                    vacuum.vacuums());
        } finally {
            for (EngineInstance instance : instances) {
                instance.close();
            }
        }
    }

    /**
     * The run ended FINISHED with every partition done, and each partition marked exactly the orders of its range:
     * together they marked every id once. Returns how many partition leases were taken over after lapsing.
     */
    private static int checkRun(BenchContext context, Way way, String runId, ScenarioReport report, int run)
            throws Exception {
        int ids = context.workload().orders();
        String what = "%d partition(s) on %d instance(s), run %d".formatted(way.partitions(), way.instances(), run);
        try (Connection connection = context.database().connect()) {
            RebuildHistory store = context.store().rebuildHistory();
            RebuildProgress end = store.progress(connection, runId, context.clock().instant()).orElseThrow();
            if (!RebuildProgress.FINISHED.equals(end.state()) || end.marked() != ids || end.remaining() != 0
                    || end.partitions() != way.partitions() || end.partitionsDone() != end.partitions()) {
                report.problem(("rebuild not exact, %s: it ended %s with %d marked, %d remaining, %d of %d partitions done; "
                        + "expected FINISHED, %d, 0, %d of %d").formatted(what, end.state(), end.marked(),
                        end.remaining(), end.partitionsDone(), end.partitions(), ids, way.partitions(),
                        way.partitions()));
            }
            for (RebuildPartition partition : store.partitions(connection, runId)) {
                long expected = ordersIn(connection, partition.after(), partition.upTo());
                if (partition.marked() != expected) {
                    report.problem("rebuild not exact, %s: partition %d (ids after %s up to %s) marked %d ids, its range holds %d"
                            .formatted(what, partition.number(), partition.after(), partition.upTo(),
                                    partition.marked(), expected));
                }
            }
            return end.takeovers();
        }
    }

    private static long ordersIn(Connection connection, String after, String upTo) throws Exception {
        try (PreparedStatement count = connection.prepareStatement(PARTITION_ORDERS)) {
            count.setLong(1, after == null ? Long.MIN_VALUE : Long.parseLong(after));
            count.setLong(2, upTo == null ? Long.MAX_VALUE : Long.parseLong(upTo));
            try (ResultSet rows = count.executeQuery()) {
                rows.next();
                return rows.getLong(1);
            }
        }
    }

}
