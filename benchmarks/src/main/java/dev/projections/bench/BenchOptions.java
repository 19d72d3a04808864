package dev.projections.bench;

import java.util.Set;
import java.util.TreeSet;
import java.util.Arrays;

/**
 * What to run and how big. Defaults: 50,000 orders, 3 runs, the dedicated database {@code projection_bench} on the
 * local PostgreSQL. {@code --quick} is a smoke-sized run (2,000 orders, 1 run); options after it still apply.
 *
 * @param orders       orders loaded (3 lines each); scenarios 1 and 2 drain one mark per order
 * @param transactions business transactions per variant in scenario 3
 * @param samples      commits measured per run in scenario 4
 * @param ioMarks      marks drained in scenario 5 (at most one per order)
 * @param big          also a rebuild of 1,000,000 orders (scenario 2), and scenario 6 at 1,000,000 orders instead of
 *                     {@code orders}, after everything else
 * @param asyncCommit  every connection with {@code synchronous_commit = off}: commits stop waiting for the disk
 * @param warmUp       an untimed round before the timed ones, so the JIT has compiled what is measured
 * @param scenarios    the scenarios to run, 1..7
 */
public record BenchOptions(int orders, int runs, int transactions, int samples, int ioMarks, boolean big,
                           boolean asyncCommit, boolean warmUp, String jdbcUrl, String user, String password, String schema,
                           Set<Integer> scenarios) {

    public static final String DEFAULT_URL = "jdbc:postgresql://127.0.0.1:5432/projection_bench";

    public static final String USAGE = """
            usage: run.sh [--quick] [--orders N] [--runs N] [--transactions N] [--samples N] [--io-marks N] [--big]
                          [--async-commit] [--only 1,2,...] [--jdbc-url URL] [--user NAME] [--password TEXT]
                          [--schema NAME]
              --quick           2,000 orders, 1 run, fewer transactions and samples: a smoke run
              --orders N        orders loaded, 3 lines each (default 50,000)
              --runs N          runs per scenario; median (min–max) is printed (default 3)
              --transactions N  business transactions per variant in scenario 3 (default 2,000)
              --samples N       commits timed per run in scenario 4 (default 500)
              --io-marks N      marks drained in scenario 5 (default 5,000)
              --big             also rebuild 1,000,000 orders at the end (loads them: minutes); scenario 6 then
                                runs on those 1,000,000 orders only
              --async-commit    synchronous_commit = off on every connection: figures bound by CPU, not by the
                                disk's flush (which dominates every commit on a slow disk)
              --only LIST       only these scenarios (1 drain, 2 rebuild, 3 marking, 4 latency, 5 instances,
                                6 partitioned rebuild, 7 isolation)
              --jdbc-url URL    database (created when missing; default %s)
              --schema NAME     schema dropped and recreated there (default public)
            """.formatted(DEFAULT_URL);

    public static BenchOptions defaults() {
        return new BenchOptions(50_000, 3, 2_000, 500, 5_000, false, false, true, DEFAULT_URL, "postgres", "",
                "public", Set.of(1, 2, 3, 4, 5, 6, 7, 8));
    }

    public static BenchOptions quick() {
        return defaults().sized(2_000, 1, 300, 100, 1_000);
    }

    /** The same run at another size. */
    public BenchOptions sized(int orders, int runs, int transactions, int samples, int ioMarks) {
        return new BenchOptions(orders, runs, transactions, samples, ioMarks, big, asyncCommit, warmUp, jdbcUrl, user,
                password, schema, scenarios);
    }

    /** The same run on another database. */
    public BenchOptions on(String jdbcUrl, String user, String password, String schema) {
        return new BenchOptions(orders, runs, transactions, samples, ioMarks, big, asyncCommit, warmUp, jdbcUrl, user,
                password, schema, scenarios);
    }

    /** The same run without the untimed warm-up rounds: for a smoke test, where no figure is read. */
    public BenchOptions withoutWarmUp() {
        return new BenchOptions(orders, runs, transactions, samples, ioMarks, big, asyncCommit, false, jdbcUrl, user,
                password, schema, scenarios);
    }

    private BenchOptions with(boolean big, boolean asyncCommit, Set<Integer> scenarios) {
        return new BenchOptions(orders, runs, transactions, samples, ioMarks, big, asyncCommit, warmUp, jdbcUrl, user,
                password, schema, scenarios);
    }

    public static BenchOptions parse(String... args) {
        BenchOptions o = Arrays.asList(args).contains("--quick") ? quick() : defaults();
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            switch (arg) {
                case "--quick" -> { }
                case "--big" -> o = o.with(true, o.asyncCommit, o.scenarios);
                case "--async-commit" -> o = o.with(o.big, true, o.scenarios);
                case "--only" -> o = o.with(o.big, o.asyncCommit, scenarioList(value(args, ++i)));
                case "--orders" -> o = o.sized(positive(args, ++i), o.runs, o.transactions, o.samples, o.ioMarks);
                case "--runs" -> o = o.sized(o.orders, positive(args, ++i), o.transactions, o.samples, o.ioMarks);
                case "--transactions" -> o = o.sized(o.orders, o.runs, positive(args, ++i), o.samples, o.ioMarks);
                case "--samples" -> o = o.sized(o.orders, o.runs, o.transactions, positive(args, ++i), o.ioMarks);
                case "--io-marks" -> o = o.sized(o.orders, o.runs, o.transactions, o.samples, positive(args, ++i));
                case "--jdbc-url" -> o = o.on(value(args, ++i), o.user, o.password, o.schema);
                case "--user" -> o = o.on(o.jdbcUrl, value(args, ++i), o.password, o.schema);
                case "--password" -> o = o.on(o.jdbcUrl, o.user, value(args, ++i), o.schema);
                case "--schema" -> o = o.on(o.jdbcUrl, o.user, o.password, value(args, ++i));
                default -> throw new IllegalArgumentException("unknown option " + arg + "\n" + USAGE);
            }
        }
        return o;
    }

    private static String value(String[] args, int i) {
        if (i >= args.length) {
            throw new IllegalArgumentException(args[i - 1] + " needs a value\n" + USAGE);
        }
        return args[i];
    }

    private static int positive(String[] args, int i) {
        String text = value(args, i).replace(",", "").replace("_", "");
        try {
            int n = Integer.parseInt(text);
            if (n >= 1) {
                return n;
            }
        } catch (NumberFormatException ignored) {
            // reported below
        }
        throw new IllegalArgumentException(args[i - 1] + " needs a whole number >= 1, was " + args[i]);
    }

    private static Set<Integer> scenarioList(String list) {
        Set<Integer> chosen = new TreeSet<>();
        for (String part : list.split(",")) {
            int n;
            try {
                n = Integer.parseInt(part.trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--only takes scenario numbers such as 1,3, was " + list);
            }
            if (n < 1 || n > 8) {
                throw new IllegalArgumentException("scenarios are 1..8, was " + n);
            }
            chosen.add(n);
        }
        return Set.copyOf(chosen);
    }
}
