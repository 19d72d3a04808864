package dev.projections.bench.scenario;

import dev.projections.bench.BenchContext;
import dev.projections.bench.ScenarioReport;

/** One measurement of the suite, run with its bound side by side. */
public interface Scenario {

    /** Its number in the suite (and for {@code --only}). */
    int number();

    ScenarioReport run(BenchContext context) throws Exception;
}
