package dev.projections;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The compatibility matrix (docs/guide/compatibility.md) claims "tested in CI" only for what CI runs: each such row
 * names its pass and a test, the test exists, and the pass runs it — the main pass is the README's test command in
 * {@code .ci/run}, {@code mariadb} the integration tests' MariaDB execution, {@code jdk25} and {@code ee11} the
 * passes of {@code .ci/beside}.
 */
class CompatibilityMatrixTest {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Pattern EVIDENCE = Pattern.compile("^(main|mariadb|jdk25|ee11): `([A-Za-z0-9]+)`$");

    @Test
    void everyRowTestedInCiNamesATestItsPassRuns() throws IOException {
        String ci = Files.readString(ROOT.resolve(".ci/run"));
        String beside = Files.readString(ROOT.resolve(".ci/beside"));
        String itTests = Files.readString(ROOT.resolve("it-tests/pom.xml"));
        List<String> problems = new ArrayList<>();
        int tested = 0;
        for (String row : Files.readAllLines(ROOT.resolve("docs/guide/compatibility.md"))) {
            String[] cells = row.split("\\|");
            if (cells.length < 8 || !cells[6].strip().equals("tested in CI")) {
                continue;
            }
            tested++;
            Matcher evidence = EVIDENCE.matcher(cells[7].strip());
            if (!evidence.matches()) {
                problems.add("no pass and test named: " + row);
                continue;
            }
            String test = evidence.group(2);
            if (!exists(test)) {
                problems.add("no test class " + test + ": " + row);
            }
            boolean run = switch (evidence.group(1)) {
                case "main" -> ci.contains("mvn -B verify -Ppayara");
                case "mariadb" -> ci.contains("PROJECTION_TEST_MARIADB_URL=")
                        && itTests.contains("<include>**/" + test + ".java</include>");
                case "jdk25" -> beside.contains("JDK 25") && beside.contains("-Dit.test=" + test);
                case "ee11" -> beside.contains("-Pee11") && Pattern.compile("-Dit\\.test=[A-Za-z,]*\\b" + test + "\\b")
                        .matcher(beside).find();
                default -> false;
            };
            if (!run) {
                problems.add("CI's " + evidence.group(1) + " pass does not run " + test + ": " + row);
            }
        }
        assertThat(tested).as("rows tested in CI").isGreaterThan(5);
        assertThat(problems).isEmpty();
    }

    private static boolean exists(String test) throws IOException {
        try (Stream<Path> files = Files.walk(ROOT)) {
            return files.anyMatch(file -> file.getFileName().toString().equals(test + ".java")
                    && !file.toString().contains("/target/"));
        }
    }
}
