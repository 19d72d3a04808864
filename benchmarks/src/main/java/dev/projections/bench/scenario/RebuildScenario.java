package dev.projections.bench.scenario;

import com.zaxxer.hikari.HikariDataSource;
import dev.projections.RebuildProgress;
import dev.projections.RebuildScope;
import dev.projections.RefreshListener;
import dev.projections.bench.BenchContext;
import dev.projections.bench.ScenarioReport;
import dev.projections.bench.Series;
import dev.projections.bench.TextTable;
import dev.projections.refresh.JdbcTransactions;
import dev.projections.bench.engine.EngineInstance;
import dev.projections.bench.engine.RebuildRunRow;
import dev.projections.bench.engine.ParallelLoop;
import dev.projections.bench.engine.PlainSqlDrain;
import dev.projections.bench.workload.OrderSearchProjection;
import dev.projections.bench.workload.SetBasedOrderSearchProjection;
import dev.projections.bench.workload.VerifiableOrderSearchProjection;
import dev.projections.config.Settings;
import dev.projections.store.PendingQueue;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

/**
 * 2. A rebuild of every order with an empty queue, stepped by the engine's drainers: (a) how fast it marks (start of
 * the run until its cursor is exhausted), against one {@code INSERT … SELECT} that marks every id at once; (b) how long
 * until nothing is pending, against that statement followed by the set-based plain-SQL drain; (d) a verification of the
 * read model the rebuild left, keys checked per second beside the rebuild's ids per second.
 */
public final class RebuildScenario implements Scenario {

    private static final String BULK_MARK = """
            INSERT INTO projection_pending
                   (projection, tenant_id, entity_id, generation, mark_count, priority, attempts, available_at,
                    first_marked_at)
            SELECT ?, '', o.id::text, gen_random_uuid()::text, 1, ?, 0, ?, ?
              FROM orders o
             ORDER BY o.id
            """;

    private static final int BOUND_BATCH = 100;
    /** A run that has not finished by then is stuck, not slow. */
    private static final Duration GIVE_UP = Duration.ofMinutes(30);

    private final String label;

    public RebuildScenario() {
        this("");
    }

    /** {@code label} tells a variant apart in the title (the million-order one). */
    public RebuildScenario(String label) {
        this.label = label;
    }

    @Override
    public int number() {
        return 2;
    }

    @Override
    public ScenarioReport run(BenchContext context) throws Exception {
        int ids = context.workload().orders();
        int workers = Settings.defaults().workers();
        ScenarioReport report = new ScenarioReport("2. Rebuild%s: %,d ids, %d drainer threads, ids/s, %d run(s)"
                .formatted(label, ids, workers, context.runs()));
        Series engineMarking = new Series();
        Series engineTotal = new Series();
        Series engineSteps = new Series();
        Series engineVerify = new Series();
        Series boundMarking = new Series();
        Series boundTotal = new Series();
        for (int run = 1; run <= context.runs(); run++) {
            context.workload().clearQueueAndReadModel();
            long[] engine = rebuildByEngine(context, workers, report, run);
            engineMarking.add(BenchContext.perSecond(ids, engine[0]));
            engineTotal.add(BenchContext.perSecond(ids, engine[1]));
            engineVerify.add(BenchContext.perSecond(2L * ids, engine[2])); // the write model's ids, the read model's rows
            context.checkDrained(report, "engine rebuild (run " + run + ")");

            context.workload().clearQueueAndReadModel();
            engineSteps.add(BenchContext.perSecond(ids, markByStepsAlone(context, report, run)));

            context.workload().clearQueueAndReadModel();
            long[] bound = rebuildByBound(context, workers);
            boundMarking.add(BenchContext.perSecond(ids, bound[0]));
            boundTotal.add(BenchContext.perSecond(ids, bound[1]));
            context.checkDrained(report, "bound rebuild (run " + run + ")");
        }
        TextTable table = new TextTable(2, "measure", "bound", "engine ids/s", "bound ids/s", "engine/bound");
        table.row("(a) marking: start → cursor exhausted", "1 INSERT…SELECT of every id",
                engineMarking.render("%,.0f"), boundMarking.render("%,.0f"), Series.ratio(engineMarking, boundMarking));
        table.row("(c) marking alone: steps, no refresh", "1 INSERT…SELECT of every id",
                engineSteps.render("%,.0f"), boundMarking.render("%,.0f"), Series.ratio(engineSteps, boundMarking));
        table.row("(b) start → nothing pending", "INSERT…SELECT + set-based drain",
                engineTotal.render("%,.0f"), boundTotal.render("%,.0f"), Series.ratio(engineTotal, boundTotal));
        table.row("(d) verification of the rebuilt model, keys checked/s", "the engine's rebuild (b)",
                engineVerify.render("%,.0f"), engineTotal.render("%,.0f"), Series.ratio(engineVerify, engineTotal));
        report.table(table);
        report.figures(engineMarking, engineTotal, boundMarking, boundTotal);
        report.note(("engine: RebuildRuns.start, then drainers loop drain(); a step marks ids(cursor, %,d) at rebuild")
                .formatted(Settings.defaults().rebuildPageSize()));
        report.note("priority when nothing is due or the run's marks run short, so marking overlaps refreshing. Read");
        report.note("model empty at the start of both; set-based refreshAll; the run must end FINISHED.");
        report.note("(a) is paced by refreshing: a run keeps about one page queued. (c) steps the same run on one");
        report.note("thread with nothing refreshing: ids(cursor, page) read and marked with one upsert per page.");
        report.note("(d) a verification of the read model (b) left: every id, then every read-model row, checked with");
        report.note("drifted(page), one set-based statement per page; nothing differs, so nothing is marked. Keys checked");
        report.note("are twice the ids: the write model's and the read model's (docs/design.md D57).");
        return report;
    }

    /**
     * Nanoseconds until the cursor is exhausted, until the run is over with nothing pending, and for a verification of
     * the read model it left.
     */
    private static long[] rebuildByEngine(BenchContext context, int workers, ScenarioReport report, int run)
            throws Exception {
        try (EngineInstance instance = EngineInstance.start(context.database(), context.store(), context.clock(),
                new VerifiableOrderSearchProjection(), workers, RefreshListener.NONE, true, null)) {
            AtomicLong exhaustedAt = new AtomicLong();
            long start = System.nanoTime();
            String runId = instance.operations().rebuilds().start(OrderSearchProjection.NAME, "",
                    RebuildScope.everything(), 1, "benchmark");
            Thread watcher = new Thread(() -> RebuildRunRow.watchAllMarked(context, runId, exhaustedAt), "cursor-watch");
            watcher.setDaemon(true);
            watcher.start();
            ParallelLoop.run(workers, "rebuild", instance.drainerStep(() -> {
                if (System.nanoTime() - start > GIVE_UP.toNanos()) {
                    throw new IllegalStateException("rebuild run " + runId + " not finished after " + GIVE_UP);
                }
                return instance.engine().hasDueWork() || RebuildProgress.RUNNING.equals(RebuildRunRow.state(instance, runId));
            }));
            long done = System.nanoTime() - start;
            watcher.join(10_000);
            RebuildProgress end = instance.transactions().inNewTransaction(Duration.ofSeconds(10), connection ->
                    context.store().rebuildHistory().progress(connection, runId, context.clock().instant())).orElseThrow();
            if (!RebuildProgress.FINISHED.equals(end.state()) || end.marked() != context.workload().orders()
                    || end.remaining() != 0) {
                report.problem("rebuild run %d ended %s with %d marked, %d remaining; expected FINISHED, %d, 0"
                        .formatted(run, end.state(), end.marked(), end.remaining(), context.workload().orders()));
            }
            long exhausted = exhaustedAt.get() == 0 ? done : exhaustedAt.get() - start;
            return new long[] {exhausted, done, verify(context, instance, workers, report, run)};
        }
    }

    /** Nanoseconds a verification of the intact read model takes, start to FINISHED, stepped by the drainers. */
    private static long verify(BenchContext context, EngineInstance instance, int workers, ScenarioReport report,
                               int run) throws Exception {
        long start = System.nanoTime();
        String runId = instance.operations().rebuilds().verify(OrderSearchProjection.NAME, "",
                RebuildScope.everything(), 1, "benchmark");
        ParallelLoop.run(workers, "verify", instance.drainerStep(() -> {
            if (System.nanoTime() - start > GIVE_UP.toNanos()) {
                throw new IllegalStateException("verification run " + runId + " not finished after " + GIVE_UP);
            }
            return instance.engine().hasDueWork() || RebuildProgress.RUNNING.equals(RebuildRunRow.state(instance, runId));
        }));
        long took = System.nanoTime() - start;
        RebuildProgress end = instance.transactions().inNewTransaction(Duration.ofSeconds(10), connection ->
                context.store().rebuildHistory().progress(connection, runId, context.clock().instant())).orElseThrow();
        long expected = 2L * context.workload().orders();
        if (!RebuildProgress.FINISHED.equals(end.state()) || end.marked() != 0 || end.checked() != expected) {
            report.problem("verification run %d ended %s with %d checked, %d drifted; expected FINISHED, %d, 0"
                    .formatted(run, end.state(), end.checked(), end.marked(), expected));
        }
        return took;
    }

    /**
     * Nanoseconds to mark every id by stepping the run on one thread while nothing refreshes: the set-based marking
     * itself, which the drained run (a) paces to the refreshes. The marks are then dropped.
     */
    private static long markByStepsAlone(BenchContext context, ScenarioReport report, int run) throws Exception {
        try (EngineInstance instance = EngineInstance.start(context.database(), context.store(), context.clock(),
                new SetBasedOrderSearchProjection(), 1, RefreshListener.NONE, true, null)) {
            String runId = instance.operations().rebuilds().start(OrderSearchProjection.NAME, "",
                    RebuildScope.everything(), 1, "benchmark");
            long start = System.nanoTime();
            while (instance.rebuilds().step()) {
                if (System.nanoTime() - start > GIVE_UP.toNanos()) {
                    throw new IllegalStateException("rebuild run " + runId + " not marked after " + GIVE_UP);
                }
            }
            long took = System.nanoTime() - start;
            long marked = instance.transactions().inNewTransaction(Duration.ofSeconds(10), connection -> {
                try (PreparedStatement count = connection.prepareStatement(
                        "SELECT COUNT(*) FROM projection_pending WHERE priority = 1")) {
                    try (ResultSet rows = count.executeQuery()) {
                        rows.next();
                        return rows.getLong(1);
                    }
                }
            });
            if (marked != context.workload().orders()) {
                report.problem("marking alone, run %d: %d ids marked, expected %d".formatted(run, marked,
                        context.workload().orders()));
            }
            instance.transactions().inNewTransaction(Duration.ofSeconds(10), connection -> {
                try (PreparedStatement end = connection.prepareStatement(
                        "UPDATE projection_rebuild SET state = 'FINISHED', running_projection = NULL, running_tenant = NULL"
                                + " WHERE run_id = ?")) {
                    end.setString(1, runId);
                    return end.executeUpdate();
                }
            });
            return took;
        }
    }


    /** Nanoseconds until every id is marked (one statement) and until the plain-SQL drain has emptied the queue. */
    private static long[] rebuildByBound(BenchContext context, int workers) throws Exception {
        try (HikariDataSource pool = context.database().pool("bound", workers + 2)) {
            JdbcTransactions transactions = new JdbcTransactions(pool);
            long start = System.nanoTime();
            transactions.inNewTransaction(Duration.ZERO, connection -> {
                try (PreparedStatement insert = connection.prepareStatement(BULK_MARK)) {
                    var now = context.clock().instant().atOffset(ZoneOffset.UTC);
                    insert.setString(1, OrderSearchProjection.NAME);
                    insert.setInt(2, PendingQueue.REBUILD);
                    insert.setObject(3, now);
                    insert.setObject(4, now);
                    return insert.executeUpdate();
                }
            });
            long marked = System.nanoTime() - start;
            new PlainSqlDrain(transactions, context.clock()).setBased(workers, BOUND_BATCH);
            return new long[] {marked, System.nanoTime() - start};
        }
    }
}
