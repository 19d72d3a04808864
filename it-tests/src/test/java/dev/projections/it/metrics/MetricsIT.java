package dev.projections.it.metrics;

import dev.projections.engine.Foundation;
import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.MarkKey;
import dev.projections.ee.EngineRuntime;
import dev.projections.it.support.Await;
import dev.projections.it.support.Deployments;
import dev.projections.it.support.GatedProjection;
import dev.projections.it.support.IdentityProbe;
import dev.projections.it.support.RecordingTenantScope;
import dev.projections.it.support.Rows;
import jakarta.annotation.Resource;
import jakarta.inject.Inject;
import java.io.File;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The meters of docs/contract.md §9 at {@code /projections/metrics}: values equal the table's state, text a real parser accepts. */
@ExtendWith(ArquillianExtension.class)
class MetricsIT {

    private static final URI METRICS = URI.create("http://127.0.0.1:8080/projections/metrics");

    @Deployment
    static EnterpriseArchive deployment() {
        return Deployments.ear(Map.of("projection.auto-refresh", "false", "projection.gated.freshness-objective", "2s"),
                List.of(GatedProjection.class, RecordingTenantScope.class, IdentityProbe.class), MetricsIT.class);
    }

    @Resource(lookup = "java:jboss/datasources/ProjectionDS")
    DataSource dataSource;

    @Inject
    Foundation foundation;

    @Inject
    EngineRuntime runtime;

    @Inject
    GatedProjection gated;

    @Test
    void gaugesEqualTheTableAndTheTimerCountsOutcomesAfterAScriptedScenario() throws Exception {
        GatedProjection.createTables(dataSource);
        String prefix = "metrics-" + UUID.randomUUID() + "-";
        List<MarkKey> keys = List.of(key(prefix + 1), key(prefix + 2), key(prefix + 3));
        try (Connection connection = dataSource.getConnection()) {
            foundation.store().queue().upsert(connection, keys, 0, foundation.clock().instant());
        }
        MarkKey rebuilt = key(prefix + 4);
        try (Connection connection = dataSource.getConnection()) {
            foundation.store().queue().upsert(connection, List.of(rebuilt), 1, foundation.clock().instant());
        }
        gated.failNext(prefix + 2, 1);
        gated.failNext(prefix + 4, 1);
        runtime.assembled().refresh().steps().refresh(runtime.assembled().refresh().steps().claim(List.of(keys.get(0))));
        runtime.assembled().refresh().steps().refresh(runtime.assembled().refresh().steps().claim(List.of(keys.get(1))));
        runtime.assembled().refresh().steps().refresh(runtime.assembled().refresh().steps().claim(List.of(rebuilt)));

        Rows rows = new Rows(dataSource);
        long pending = rows.count("SELECT COUNT(*) FROM projection_pending WHERE projection = 'gated'");
        long failing = rows.count("SELECT COUNT(*) FROM projection_pending WHERE projection = 'gated' AND attempts > 0");
        long rebuildFailing = rows.count(
                "SELECT COUNT(*) FROM projection_pending WHERE projection = 'gated' AND attempts > 0 AND priority = 1");
        assertThat(failing).isEqualTo(2);
        assertThat(rebuildFailing).isEqualTo(1);
        // a scrape may be answered from the gauges' one-second cache: wait for the reading of the end state
        Await.until("gauges equal to the table", () -> {
            String now = scrape0();
            return value(now, "projection_pending", "gated") == pending
                    && value(now, "projection_failing", "gated") == failing
                    && value(now, "projection_rebuild_failing", "gated") == rebuildFailing;
        });
        String text = scrape();
        assertThat(value(text, "projection_oldest_age_seconds", "gated")).isGreaterThanOrEqualTo(0);
        assertThat(text).containsPattern("projection_refresh_seconds_count\\{outcome=\"success\",projection=\"gated\"[^}]*} [1-9]");
        assertThat(text).containsPattern("projection_refresh_seconds_count\\{outcome=\"failed\",projection=\"gated\"[^}]*} [1-9]");
        // labels in any order: the registry's, not ours
        assertThat(text).as("the refresh timer's histogram").containsPattern(
                "projection_refresh_seconds_bucket\\{(?=[^}]*outcome=\"success\")(?=[^}]*projection=\"gated\")[^}]*le=");
        // the one refresh that committed: its lag, in a histogram with a bucket at gated's freshness objective
        assertThat(text).containsPattern("projection_lag_seconds_count\\{[^}]*projection=\"gated\"[^}]*} 1(\\.0)?\\s");
        assertThat(text).containsPattern(
                "projection_lag_seconds_bucket\\{(?=[^}]*projection=\"gated\")(?=[^}]*le=\"2\\.0\")[^}]*} 1(\\.0)?\\s");
    }

    @Test
    @RunAsClient
    void theTextIsAcceptedByPromtool() throws Exception {
        File promtool = new File("/usr/bin/promtool");
        assertThat(promtool.canExecute()).as("promtool, from Debian's prometheus package (.ci/run installs it)").isTrue();
        Path scraped = Files.createTempFile("projection-metrics", ".prom");
        Files.writeString(scraped, scrape(), StandardCharsets.UTF_8);
        Process check = new ProcessBuilder(promtool.getPath(), "check", "metrics")
                .redirectInput(scraped.toFile()).redirectErrorStream(true).start();
        String output = new String(check.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(check.waitFor()).as(output).isZero();
    }

    /**
     * The alert rules and the dashboard in docs/operations (issue 33): accepted by promtool, their unit tests pass (each
     * alert fires on the series it is for, and only there), and every meter they name is one this server serves.
     */
    @Test
    @RunAsClient
    void theAlertRulesAndTheDashboardNameOnlyMetersTheServerServesAndTheirTestsPass() throws Exception {
        Path operations = Path.of("..", "docs", "operations").toAbsolutePath().normalize();
        assertThat(promtool(operations, "check", "rules", "prometheus-alerts.yml")).contains("SUCCESS: 9 rules found");
        assertThat(promtool(operations, "test", "rules", "prometheus-alerts.test.yml")).contains("SUCCESS");

        java.util.Set<String> served = new java.util.TreeSet<>();
        for (String line : scrape().split("\n")) {
            if (!line.startsWith("#") && !line.isBlank()) {
                served.add(line.split("[{ ]", 2)[0]);
            }
        }
        Pattern meter = Pattern.compile("projection_[a-z_]+");
        for (String file : List.of("prometheus-alerts.yml", "grafana-dashboard.json")) {
            Matcher named = meter.matcher(Files.readString(operations.resolve(file)));
            java.util.Set<String> used = new java.util.TreeSet<>();
            while (named.find()) {
                used.add(named.group());
            }
            assertThat(used).as(file).isNotEmpty();
            assertThat(served).as(file + ": every meter it names is served").containsAll(used);
        }
    }

    private static String promtool(Path directory, String... arguments) throws Exception {
        List<String> command = new java.util.ArrayList<>(List.of("/usr/bin/promtool"));
        command.addAll(List.of(arguments));
        Process run = new ProcessBuilder(command).directory(directory.toFile()).redirectErrorStream(true).start();
        String output = new String(run.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(run.waitFor()).as(String.join(" ", command) + "\n" + output).isZero();
        return output;
    }

    private static MarkKey key(String id) {
        return new MarkKey(GatedProjection.NAME, "", id);
    }

    private static String scrape0() {
        try {
            return scrape();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static String scrape() throws Exception {
        HttpResponse<String> response = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()
                .send(HttpRequest.newBuilder(METRICS).GET().build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith("text/plain"));
        return response.body();
    }

    private static double value(String text, String metric, String projection) {
        Matcher m = Pattern.compile("(?m)^" + metric + "\\{[^}]*projection=\"" + projection + "\"[^}]*} (\\S+)$").matcher(text);
        assertThat(m.find()).as(metric + " for " + projection + " in:\n" + text).isTrue();
        return Double.parseDouble(m.group(1));
    }
}
