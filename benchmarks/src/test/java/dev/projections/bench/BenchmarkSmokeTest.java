package dev.projections.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.testsupport.TestDatabase;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The whole suite on a tiny workload, so a change that breaks a scenario (or the engine's API it drives) is seen in
 * {@code mvn verify}. It checks that every scenario measured something and that every read model was exact after
 * its drains; it never checks a time, which depends on the machine. Runs in a schema of its own of the test
 * database ({@link TestDatabase}, which always finds one: the configured server, Testcontainers or an embedded
 * PostgreSQL), like every other PostgreSQL test; a database it cannot reach fails the test.
 */
class BenchmarkSmokeTest {

    private static final String SCHEMA = "benchmark_smoke";

    @Test
    void everyScenarioMeasuresAndLeavesExactReadModels() throws Exception {
        TestDatabase database = TestDatabase.get();
        BenchOptions options = BenchOptions.defaults()
                .sized(200, 1, 30, 10, 100)
                .withoutWarmUp()
                .on(database.jdbcUrl(), database.user(), database.password(), SCHEMA);
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        List<ScenarioReport> reports;
        try (PrintStream out = new PrintStream(printed, true, StandardCharsets.UTF_8)) {
            reports = BenchSuite.run(options, out);
        } finally {
            System.out.print(printed.toString(StandardCharsets.UTF_8));
        }

        assertThat(reports).hasSize(8);
        for (ScenarioReport report : reports) {
            assertThat(report.figures()).as(report.title()).isNotEmpty()
                    .allSatisfy(figure -> assertThat(figure).as(report.title()).isFinite().isPositive());
            assertThat(report.readModelChecks()).as(report.title()).isPositive();
            assertThat(report.readModelDifferences()).as(report.title()).isZero();
            assertThat(report.problems()).as(report.title())
                    .noneMatch(problem -> problem.contains("left pending") || problem.contains("marks written")
                            || problem.contains("rebuild not exact"));
        }
    }
}
