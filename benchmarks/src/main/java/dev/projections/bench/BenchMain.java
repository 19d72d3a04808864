package dev.projections.bench;

import java.util.List;
import java.util.Arrays;

/** {@code run.sh}'s entry point: runs the suite and exits non-zero when a scenario saw a problem. */
public final class BenchMain {

    private BenchMain() {
    }

    public static void main(String[] args) throws Exception {
        if (Arrays.asList(args).contains("--help")) {
            System.out.print(BenchOptions.USAGE);
            return;
        }
        BenchOptions options;
        try {
            options = BenchOptions.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        List<ScenarioReport> reports = BenchSuite.run(options, System.out);
        long problems = reports.stream().mapToLong(r -> r.problems().size()).sum();
        if (problems > 0) {
            System.out.println(problems + " problem(s) seen: see PROBLEM lines above");
        }
        // drainer threads of closed engines are gone, but Hibernate and the pools may leave daemon-less helpers
        System.exit(problems > 0 ? 1 : 0);
    }
}
