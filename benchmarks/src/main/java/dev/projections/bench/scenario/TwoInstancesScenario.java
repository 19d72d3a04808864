package dev.projections.bench.scenario;

import dev.projections.RefreshListener;
import dev.projections.bench.BenchContext;
import dev.projections.bench.ScenarioReport;
import dev.projections.bench.Series;
import dev.projections.bench.TextTable;
import dev.projections.bench.engine.EngineInstance;
import dev.projections.bench.engine.ParallelLoop;
import dev.projections.bench.workload.SlowOrderSearchProjection;
import dev.projections.config.Settings;
import java.util.List;
import java.util.stream.LongStream;

/**
 * 5. Whether a second instance helps when refreshes wait on I/O (5 ms per id): one engine with {@code workers}
 * drainer threads against two engines on the same database, each with its own pool, hand-off and drainers. The
 * shared pending table must split the marks between them without losing or repeating any.
 */
public final class TwoInstancesScenario implements Scenario {

    @Override
    public int number() {
        return 5;
    }

    @Override
    public ScenarioReport run(BenchContext context) throws Exception {
        int marks = Math.min(context.options().ioMarks(), context.workload().orders());
        int workers = Settings.defaults().workers();
        ScenarioReport report = new ScenarioReport(("5. One instance vs two, I/O-bound projection (5 ms per id): %,d "
                + "marks, %d drainers per instance, keys/s, %d run(s)").formatted(marks, workers, context.runs()));
        List<Long> ids = LongStream.rangeClosed(1, marks).boxed().toList();
        Series one = new Series();
        Series two = new Series();
        for (int run = 1; run <= context.runs(); run++) {
            prepare(context, marks);
            try (EngineInstance a = start(context, workers)) {
                one.add(BenchContext.perSecond(marks, a.drainWith(workers)));
            }
            context.checkDrained(report, "one instance (run " + run + ")", ids);

            prepare(context, marks);
            try (EngineInstance a = start(context, workers); EngineInstance b = start(context, workers)) {
                EngineInstance[] instances = {a, b};
                long took = ParallelLoop.run(2 * workers, "two-instances", i -> {
                    EngineInstance instance = instances[i % 2];
                    return instance.drainerStep(instance.engine()::hasDueWork);
                });
                two.add(BenchContext.perSecond(marks, took));
            }
            context.checkDrained(report, "two instances (run " + run + ")", ids);
        }
        context.workload().clearQueueAndReadModel();
        TextTable table = new TextTable(1, "instances", "keys/s", "÷ one instance");
        table.row("1", one.render("%,.0f"), "1.00");
        table.row("2", two.render("%,.0f"), Series.ratio(two, one));
        report.table(table);
        report.figures(one, two);
        report.note("projection: set-based SQL plus a 5 ms sleep per id in refresh and refreshAll; batch-size 100,");
        report.note("so one drainer thread refreshes at most ~200 ids/s whatever the database can do.");
        return report;
    }

    private static void prepare(BenchContext context, int marks) throws Exception {
        context.workload().clearQueueAndReadModel();
        context.workload().markFirst(marks, context.store().queue(), context.clock());
    }

    private static EngineInstance start(BenchContext context, int workers) {
        return EngineInstance.start(context.database(), context.store(), context.clock(),
                new SlowOrderSearchProjection(), workers, RefreshListener.NONE, false, null);
    }
}
