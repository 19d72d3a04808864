package dev.projections.bench;

import dev.projections.bench.db.BenchDatabase;
import dev.projections.bench.scenario.CommitLatencyScenario;
import dev.projections.bench.scenario.DrainThroughputScenario;
import dev.projections.bench.scenario.IsolationScenario;
import dev.projections.bench.scenario.MarkingOverheadScenario;
import dev.projections.bench.scenario.PartitionedRebuildScenario;
import dev.projections.bench.scenario.ReadYourWritesScenario;
import dev.projections.bench.scenario.RebuildScenario;
import dev.projections.bench.scenario.Scenario;
import dev.projections.bench.scenario.TwoInstancesScenario;
import dev.projections.bench.workload.OrderWorkload;
import dev.projections.refresh.AdjustableClock;
import dev.projections.store.Tables;
import java.io.PrintStream;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The whole suite: a fresh schema with the product's tables, the order workload, then each chosen scenario, each
 * printing its table as soon as it is done. Used by {@link BenchMain} and by the smoke test.
 */
public final class BenchSuite {

    private static final int BIG_REBUILD = 1_000_000;

    private BenchSuite() {
    }

    public static List<ScenarioReport> run(BenchOptions options, PrintStream out) throws Exception {
        LogWatch warnings = LogWatch.install();
        long start = System.nanoTime();
        BenchDatabase database = BenchDatabase.fresh(options.jdbcUrl(), options.user(), options.password(),
                options.schema(), options.asyncCommit());
        out.printf("Projections benchmark — %s, schema %s (%s)%n", options.jdbcUrl(), options.schema(),
                serverVersion(database));
        out.printf("%,d orders × %d lines, %d run(s) per scenario, %d CPUs, Java %s%n", options.orders(),
                OrderWorkload.LINES_PER_ORDER, options.runs(), Runtime.getRuntime().availableProcessors(),
                System.getProperty("java.version"));
        OrderWorkload workload = OrderWorkload.load(database, options.orders());
        // claims carry their holder's name, as on a server: the claim's row is as wide as in production
        BenchContext context = new BenchContext(options, database, workload,
                Tables.forProduct("PostgreSQL", "bench-instance"), new AdjustableClock());
        List<ScenarioReport> reports = new ArrayList<>();
        List<Scenario> scenarios = List.of(new DrainThroughputScenario(), new RebuildScenario(),
                new MarkingOverheadScenario(), new CommitLatencyScenario(), new TwoInstancesScenario(),
                new PartitionedRebuildScenario(), new IsolationScenario(), new ReadYourWritesScenario());
        for (Scenario scenario : scenarios) {
            // with --big, the partitioned rebuild is measured on the million orders only
            boolean onBigOnly = options.big() && scenario.number() == 6;
            if (options.scenarios().contains(scenario.number()) && !onBigOnly) {
                reports.add(runOne(scenario, context, warnings, out));
            }
        }
        List<Scenario> big = new ArrayList<>();
        if (options.scenarios().contains(2)) {
            big.add(new RebuildScenario(" (--big)"));
        }
        if (options.scenarios().contains(6)) {
            big.add(new PartitionedRebuildScenario(" (--big)"));
        }
        if (options.big() && !big.isEmpty()) {
            out.printf("%nloading %,d orders for the big rebuild…%n", BIG_REBUILD);
            OrderWorkload bigWorkload = OrderWorkload.load(database, BIG_REBUILD);
            BenchOptions once = options.sized(BIG_REBUILD, 1, options.transactions(), options.samples(),
                    options.ioMarks());
            BenchContext bigContext = new BenchContext(once, database, bigWorkload, context.store(), context.clock());
            for (Scenario scenario : big) {
                reports.add(runOne(scenario, bigContext, warnings, out));
            }
        }
        out.printf("%ndone in %.0f s%n", (System.nanoTime() - start) / 1e9);
        return reports;
    }

    private static ScenarioReport runOne(Scenario scenario, BenchContext context, LogWatch warnings, PrintStream out)
            throws Exception {
        String loadBefore = loadAverage();
        long start = System.nanoTime();
        ScenarioReport report = scenario.run(context);
        warnings.reportTo(report);
        report.note("took %.0f s".formatted((System.nanoTime() - start) / 1e9));
        if (!loadBefore.isEmpty()) {
            // the figures are only as quiet as the machine: other work on it shows here
            report.note("machine load average (1 min) before / after: " + loadBefore + " / " + loadAverage()
                    + " on " + Runtime.getRuntime().availableProcessors() + " CPUs");
        }
        out.print(report.render());
        out.flush();
        return report;
    }

    /** The 1-minute load average where the system tells it (Linux), else "". */
    private static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }

    private static String serverVersion(BenchDatabase database) throws Exception {
        try (Connection connection = database.connect(); Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery("SELECT current_setting('server_version'), "
                     + "current_setting('autovacuum'), current_setting('fsync'), current_setting('synchronous_commit')")) {
            rows.next();
            return "PostgreSQL " + rows.getString(1) + ", autovacuum " + rows.getString(2) + ", fsync "
                    + rows.getString(3) + ", synchronous_commit " + rows.getString(4);
        }
    }
}
