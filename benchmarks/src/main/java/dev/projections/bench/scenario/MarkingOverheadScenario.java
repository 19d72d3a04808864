package dev.projections.bench.scenario;

import dev.projections.RefreshListener;
import dev.projections.bench.BenchContext;
import dev.projections.bench.ScenarioReport;
import dev.projections.bench.Series;
import dev.projections.bench.TextTable;
import dev.projections.bench.engine.EngineInstance;
import dev.projections.bench.orm.BenchMarkSink;
import dev.projections.bench.orm.OrmUnit;
import dev.projections.bench.workload.OrderWorkload;
import dev.projections.bench.workload.SetBasedOrderSearchProjection;
import dev.projections.config.Settings;
import jakarta.persistence.EntityManager;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.LongAdder;

/**
 * 3. What marking costs the business transaction: the same Hibernate transactions, one thread, through a unit
 * without {@code @Projected} and through one with it — marks written at commit but left in the table ("refresh off"),
 * and marks handed to the engine's drainers after each commit ("refresh on", drainers competing for the database).
 */
public final class MarkingOverheadScenario implements Scenario {

    private static final long FOLLOW_UP_TIMEOUT_MS = 120_000;
    /** Transactions per variant before the next variant's turn. */
    private static final int BLOCK = 50;

    private enum Kind { INSERT_HEAVY, UPDATE_HEAVY }

    private enum Variant {
        UNMARKED("unmarked"), REFRESH_OFF("marked, refresh off"), REFRESH_ON("marked, refresh on");

        final String label;

        Variant(String label) {
            this.label = label;
        }
    }

    /** One variant's measurement in one run. */
    private record Measured(double perSecond, double statements, double engineStatements) {
    }

    @Override
    public int number() {
        return 3;
    }

    @Override
    public ScenarioReport run(BenchContext context) throws Exception {
        int transactions = context.options().transactions();
        ScenarioReport report = new ScenarioReport(("3. Marking overhead: Hibernate ORM in Java SE, 1 thread, %,d "
                + "transactions per variant, %d run(s)").formatted(transactions, context.runs()));
        BenchMarkSink sink = BenchMarkSink.install(context.store().queue(), context.clock());
        LongAdder engineStatements = new LongAdder();
        Series[][] rate = new Series[2][3];
        Series[][] statements = new Series[2][3];
        Series[] engineSide = {new Series(), new Series()};
        for (int k = 0; k < 2; k++) {
            for (int v = 0; v < 3; v++) {
                rate[k][v] = new Series();
                statements[k][v] = new Series();
            }
        }
        context.workload().fillReadModel();
        try (OrmUnit plain = OrmUnit.plain(context.database()); OrmUnit marked = OrmUnit.marked(context.database());
             EngineInstance instance = EngineInstance.start(context.database(), context.store(), context.clock(),
                     new SetBasedOrderSearchProjection(), Settings.defaults().workers(), RefreshListener.NONE, true,
                     engineStatements)) {
            if (context.options().warmUp()) {
                warmUp(context, plain, marked, sink, instance, Math.min(300, transactions));
            }
            for (int run = 1; run <= context.runs(); run++) {
                for (Kind kind : Kind.values()) {
                    Measured[] measured = measureRun(context, report, kind, plain, marked, sink, instance,
                            engineStatements, transactions, run);
                    for (Variant variant : Variant.values()) {
                        Measured m = measured[variant.ordinal()];
                        rate[kind.ordinal()][variant.ordinal()].add(m.perSecond);
                        statements[kind.ordinal()][variant.ordinal()].add(m.statements);
                        if (variant == Variant.REFRESH_ON) {
                            engineSide[kind.ordinal()].add(m.engineStatements);
                        }
                    }
                }
            }
        } finally {
            sink.refreshOff();
            context.workload().removeCreatedOrders();
            context.workload().clearQueueAndReadModel();
        }
        TextTable table = new TextTable(2, "transaction", "variant", "tx/s", "÷ unmarked", "statements/tx",
                "engine statements/tx");
        for (Kind kind : Kind.values()) {
            Series unmarked = rate[kind.ordinal()][Variant.UNMARKED.ordinal()];
            for (Variant variant : Variant.values()) {
                Series r = rate[kind.ordinal()][variant.ordinal()];
                table.row(kind == Kind.INSERT_HEAVY ? "insert order + 3 lines" : "update 1 line's quantity",
                        variant.label, r.render("%,.0f"), Series.ratio(r, unmarked),
                        statements[kind.ordinal()][variant.ordinal()].render("%.2f"),
                        variant == Variant.REFRESH_ON ? engineSide[kind.ordinal()].render("%.2f") : "-");
                report.figures(r);
            }
        }
        report.table(table);
        report.note("statements: JDBC executions on the unit's connections (Hibernate's + the marks' upsert); engine");
        report.note("statements: claims, refreshes and acks of the drainers per business transaction (refresh on).");
        report.note("The variants take turns in blocks of %d, each block from an empty queue; updates hit the"
                .formatted(BLOCK));
        report.note("same random lines in every variant. Refresh on: tx/s counts commits only; after each block the");
        report.note("drainers are awaited (untimed) and at the end the touched orders' rows are compared.");
        return report;
    }

    /**
     * One run of one kind: the three variants take turns in blocks of {@value #BLOCK} transactions, so that a slow
     * spell of the disk (every commit waits for its flush) falls on all three alike rather than on whichever ran then.
     */
    private static Measured[] measureRun(BenchContext context, ScenarioReport report, Kind kind, OrmUnit plain,
                                         OrmUnit marked, BenchMarkSink sink, EngineInstance drainers,
                                         LongAdder engineStatements, int transactions, int run) throws Exception {
        Variant[] variants = Variant.values();
        long[] nanos = new long[variants.length];
        long[] statements = new long[variants.length];
        long[] engine = new long[variants.length];
        int[] done = new int[variants.length];
        Set<Long> refreshedOrders = new TreeSet<>();
        for (int block = 0; done[0] < transactions; block++) {
            int size = Math.min(BLOCK, transactions - done[0]);
            for (Variant variant : variants) {
                int v = variant.ordinal();
                OrmUnit unit = variant == Variant.UNMARKED ? plain : marked;
                // each variant's updates hit the same lines in the same order
                Random random = new Random(run * 1_000L + kind.ordinal() * 100L + block);
                // a few dozen rows: DELETE and VACUUM, not TRUNCATE, whose commit waits for files to reach the disk
                context.workload().database().execute("DELETE FROM projection_pending", "VACUUM projection_pending");
                if (variant == Variant.REFRESH_ON) {
                    sink.afterCommit(drainers::committed);
                } else {
                    sink.refreshOff();
                }
                Set<Long> touched = new TreeSet<>();
                long statementsBefore = unit.statements();
                long engineBefore = engineStatements.sum();
                long start = System.nanoTime();
                for (int i = 0; i < size; i++) {
                    touched.add(oneTransaction(unit, kind, random, context.workload(), done[v] + i));
                }
                nanos[v] += System.nanoTime() - start;
                statements[v] += unit.statements() - statementsBefore;
                done[v] += size;
                String phase = "%s, %s, run %d, block %d".formatted(kind, variant.label, run, block + 1);
                if (variant == Variant.REFRESH_ON) {
                    // not timed: the drainers finish what the block handed them before the next variant's turn
                    drainers.awaitQuiet(FOLLOW_UP_TIMEOUT_MS);
                    engine[v] += engineStatements.sum() - engineBefore;
                    refreshedOrders.addAll(touched);
                } else {
                    long expected = variant == Variant.REFRESH_OFF ? touched.size() : 0;
                    long pending = context.workload().pending();
                    if (pending != expected) {
                        report.problem(phase + ": " + pending + " marks written, expected " + expected);
                    }
                }
                sink.refreshOff();
            }
        }
        // an order the other variants changed in a block, the refresh-on variant changed after them in that block
        context.checkDrained(report, kind + ", refresh on, run " + run, refreshedOrders);
        Measured[] measured = new Measured[variants.length];
        for (Variant variant : variants) {
            int v = variant.ordinal();
            measured[v] = new Measured(BenchContext.perSecond(transactions, nanos[v]),
                    (double) statements[v] / transactions, (double) engine[v] / transactions);
        }
        return measured;
    }

    /** One business transaction; returns the id of the order it changed. */
    private static long oneTransaction(OrmUnit unit, Kind kind, Random random, OrderWorkload workload, int i) {
        EntityManager em = unit.entityManagers().createEntityManager();
        try {
            em.getTransaction().begin();
            long orderId;
            if (kind == Kind.INSERT_HEAVY) {
                orderId = unit.createOrder(em, i);
            } else {
                long lineId = 1 + random.nextInt(workload.lines());
                unit.bumpQuantity(em, lineId);
                orderId = (lineId - 1) / OrderWorkload.LINES_PER_ORDER + 1;
            }
            em.getTransaction().commit();
            return orderId;
        } finally {
            if (em.getTransaction().isActive()) {
                em.getTransaction().rollback();
            }
            em.close();
        }
    }

    /** Hibernate's and the engine's paths compiled before anything is timed. */
    private static void warmUp(BenchContext context, OrmUnit plain, OrmUnit marked, BenchMarkSink sink,
                               EngineInstance drainers, int transactions) throws Exception {
        Random random = new Random(7);
        sink.afterCommit(drainers::committed);
        for (Kind kind : Kind.values()) {
            for (OrmUnit unit : new OrmUnit[] {plain, marked}) {
                for (int i = 0; i < transactions; i++) {
                    oneTransaction(unit, kind, random, context.workload(), i);
                }
            }
        }
        drainers.awaitQuiet(FOLLOW_UP_TIMEOUT_MS);
        sink.refreshOff();
        context.workload().removeCreatedOrders();
        context.workload().fillReadModel();
    }
}
