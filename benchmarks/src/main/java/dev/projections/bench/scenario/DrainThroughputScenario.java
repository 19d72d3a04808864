package dev.projections.bench.scenario;

import com.zaxxer.hikari.HikariDataSource;
import dev.projections.Projection;
import dev.projections.RefreshListener;
import dev.projections.bench.BenchContext;
import dev.projections.bench.ScenarioReport;
import dev.projections.bench.Series;
import dev.projections.bench.TextTable;
import dev.projections.refresh.JdbcTransactions;
import dev.projections.bench.db.StatementCounting;
import dev.projections.bench.engine.EngineInstance;
import dev.projections.bench.engine.PlainSqlDrain;
import dev.projections.bench.workload.OrderSearchProjection;
import dev.projections.bench.workload.OrderWorkload;
import dev.projections.bench.workload.SetBasedOrderSearchProjection;
import java.util.concurrent.atomic.LongAdder;

/**
 * 1. How fast the engine empties a queue of N live marks with 1, 2 and 4 drainer threads, next to a plain-SQL drain
 * with the same refresh statements: set-based projections against "lock 100, refresh them in one statement, delete
 * them", per-id projections against "lock one, refresh it, delete it".
 */
public final class DrainThroughputScenario implements Scenario {

    private static final int[] WORKERS = {1, 2, 4};
    private static final int BOUND_BATCH = 100;
    /** Marks drained once per variant before measuring, so the JIT has compiled the engine's path. */
    private static final int WARM_UP_MARKS = 3_000;

    private enum Variant {
        SET_BASED("set-based", "lock 100 + 1 refresh + 1 delete per tx"),
        PER_ID("per-id (default)", "lock 1 + refresh + delete per tx");

        final String label;
        final String bound;

        Variant(String label, String bound) {
            this.label = label;
            this.bound = bound;
        }

        Projection projection() {
            return this == SET_BASED ? new SetBasedOrderSearchProjection() : new OrderSearchProjection();
        }
    }

    @Override
    public int number() {
        return 1;
    }

    @Override
    public ScenarioReport run(BenchContext context) throws Exception {
        OrderWorkload workload = context.workload();
        int marks = workload.orders();
        ScenarioReport report = new ScenarioReport(
                "1. Drain throughput: %,d live marks, keys/s, %d run(s)".formatted(marks, context.runs()));
        Series[][] engine = new Series[Variant.values().length][WORKERS.length];
        Series[][] bound = new Series[Variant.values().length][WORKERS.length];
        // statements per key of the engine and the bound, then transactions per key of each
        Series[][] perKey = new Series[Variant.values().length][4];
        for (Variant v : Variant.values()) {
            for (int w = 0; w < WORKERS.length; w++) {
                engine[v.ordinal()][w] = new Series();
                bound[v.ordinal()][w] = new Series();
            }
            for (int c = 0; c < 4; c++) {
                perKey[v.ordinal()][c] = new Series();
            }
        }
        if (context.options().warmUp()) {
            warmUp(context, Math.min(WARM_UP_MARKS, marks));
        }
        for (int run = 1; run <= context.runs(); run++) {
            for (Variant v : Variant.values()) {
                for (int w = 0; w < WORKERS.length; w++) {
                    int workers = WORKERS[w];
                    String phase = "run %d, %s, %d workers".formatted(run, v.label, workers);
                    prepare(context, marks);
                    Drained ours = drainByEngine(context, v, workers);
                    context.checkDrained(report, "engine drain (" + phase + ")");
                    prepare(context, marks);
                    Drained plain = drainByBound(context, v, workers);
                    context.checkDrained(report, "bound drain (" + phase + ")");
                    engine[v.ordinal()][w].add(BenchContext.perSecond(marks, ours.nanos));
                    bound[v.ordinal()][w].add(BenchContext.perSecond(marks, plain.nanos));
                    if (w == 0) {
                        // the work per key does not depend on the number of threads: counted at one worker
                        perKey[v.ordinal()][0].add((double) ours.statements / marks);
                        perKey[v.ordinal()][1].add((double) plain.statements / marks);
                        perKey[v.ordinal()][2].add((double) ours.transactions / marks);
                        perKey[v.ordinal()][3].add((double) plain.transactions / marks);
                    }
                }
            }
        }
        TextTable table = new TextTable(3, "refreshAll", "workers", "bound", "engine keys/s", "bound keys/s",
                "engine/bound");
        for (Variant v : Variant.values()) {
            for (int w = 0; w < WORKERS.length; w++) {
                Series ours = engine[v.ordinal()][w];
                Series plain = bound[v.ordinal()][w];
                table.row(v.label, Integer.toString(WORKERS[w]), v.bound, ours.render("%,.0f"), plain.render("%,.0f"),
                        Series.ratio(ours, plain));
                report.figures(ours, plain);
            }
        }
        report.table(table);
        TextTable work = new TextTable(1, "refreshAll", "statements/key engine", "bound", "transactions/key engine",
                "bound");
        for (Variant v : Variant.values()) {
            Series[] counts = perKey[v.ordinal()];
            work.row(v.label, counts[0].render("%.2f"), counts[1].render("%.2f"), counts[2].render("%.3f"),
                    counts[3].render("%.3f"));
        }
        report.table(work);
        report.note("engine: one RefreshEngine, batch-size 100, each thread loops drain() until nothing is due;");
        report.note("the per-id projection keeps Projection's default refreshAll (refresh per id, one tx per batch).");
        report.note("figures: median (min–max) over runs; the ratio is taken per run. Each drain starts from the same");
        report.note("%,d marks (store.upsert, LIVE, 1,000 per tx), an empty read model and VACUUM ANALYZE."
                .formatted(marks));
        report.note("statements and transactions per key: JDBC executions and transactions of the drain at 1 worker.");
        return report;
    }

    /** Same queue, same empty read model, fresh statistics for every drain, ours and the bound's. */
    private static void prepare(BenchContext context, int marks) throws Exception {
        context.workload().clearQueueAndReadModel();
        context.workload().markFirst(marks, context.store().queue(), context.clock());
    }

    /** One drain: how long it took, and the statements and transactions it ran. */
    private record Drained(long nanos, long statements, long transactions) {
    }

    private static Drained drainByEngine(BenchContext context, Variant variant, int workers) throws Exception {
        LongAdder statements = new LongAdder();
        try (EngineInstance instance = EngineInstance.start(context.database(), context.store(), context.clock(),
                variant.projection(), workers, RefreshListener.NONE, false, statements)) {
            long before = instance.transactions().begun();
            long nanos = instance.drainWith(workers);
            return new Drained(nanos, statements.sum(), instance.transactions().begun() - before);
        }
    }

    private static Drained drainByBound(BenchContext context, Variant variant, int workers) throws Exception {
        LongAdder statements = new LongAdder();
        try (HikariDataSource pool = context.database().pool("bound", workers + 2)) {
            JdbcTransactions transactions = new JdbcTransactions(StatementCounting.wrap(pool, statements));
            PlainSqlDrain drain = new PlainSqlDrain(transactions, context.clock());
            long nanos = variant == Variant.SET_BASED ? drain.setBased(workers, BOUND_BATCH) : drain.perKey(workers);
            return new Drained(nanos, statements.sum(), transactions.begun());
        }
    }

    private static void warmUp(BenchContext context, int marks) throws Exception {
        for (Variant v : Variant.values()) {
            prepare(context, marks);
            drainByEngine(context, v, 2);
            prepare(context, marks);
            drainByBound(context, v, 2);
        }
        context.workload().clearQueueAndReadModel();
    }
}
