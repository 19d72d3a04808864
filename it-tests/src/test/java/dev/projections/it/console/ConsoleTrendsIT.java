package dev.projections.it.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.it.support.Browser;
import dev.projections.it.support.ConsoleUsers;
import dev.projections.it.support.Deployments;
import dev.projections.it.support.PendingRows;
import dev.projections.it.support.TestSql;
import dev.projections.testsupport.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;

/**
 * The trends and the instances in Chromium (docs/contract.md §12), from rows written into {@code projection_trend} and
 * {@code projection_node} as two instances' sweeps would have (the engine's writing of them is TrendSamplingIT's):
 * a projection's page draws the minutes added up across instances, the overview links to it with its last hour,
 * and the instances page tells a reporting instance from a gone one. Nothing refreshes meanwhile (auto-refresh off).
 */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class ConsoleTrendsIT {

    private static final Instant NOW = Instant.now().truncatedTo(ChronoUnit.MINUTES);

    @Deployment(testable = false)
    static EnterpriseArchive deployment() {
        return Deployments.ear(Map.of("projection.auto-refresh", "false",
                "projection.order-search.freshness-objective", "2s",
                "projection.customer-stats.freshness-objective", "1s"));
    }

    @BeforeEach
    void twoInstancesReportedTheLastHour() throws Exception {
        try (Connection connection = TestDatabase.get().connect(); Statement statement = connection.createStatement()) {
            statement.executeUpdate("DELETE FROM projection_trend");
            statement.executeUpdate("DELETE FROM projection_node");
            try (PreparedStatement insert = connection.prepareStatement("""
                    INSERT INTO projection_trend (projection, sampled_minute, instance_id, pending, due_now, failing,
                                                  refreshes, failures, p99_micros, lag_histogram)
                    VALUES ('order-search', ?, ?, ?, ?, ?, ?, ?, ?, ?)""")) {
                for (int ago = 60; ago >= 1; ago--) {
                    if (ago == 30) {
                        continue; // a minute nobody reported: a gap, not a zero
                    }
                    for (String node : List.of("node-a", "node-b")) {
                        insert.setObject(1, at(NOW.minus(ago, ChronoUnit.MINUTES)));
                        insert.setString(2, node);
                        insert.setLong(3, ago == 10 ? 340 : 40);
                        insert.setLong(4, ago == 10 ? 300 : 20);
                        insert.setLong(5, 2);
                        insert.setLong(6, node.equals("node-a") ? 600 : 150);
                        insert.setLong(7, 1);
                        insert.setLong(8, node.equals("node-a") ? 4_000 : 12_500);
                        // lags as the engine writes them: bucket 120 ends at 2^15 µs (33 ms), 160 at 2^20 (1.0 s);
                        // none in the hour's first minutes, which a minute turning during the test leaves out
                        insert.setString(9, ago >= 59 ? null : node.equals("node-a") ? "m:32768 120:600" : "m:1048576 160:150");
                        insert.addBatch();
                    }
                }
                insert.executeBatch();
            }
            try (PreparedStatement insert = connection.prepareStatement("""
                    INSERT INTO projection_trend (projection, sampled_minute, instance_id, lag_histogram)
                    VALUES ('customer-stats', ?, 'node-a', 'm:2097152 168:10')""")) {
                insert.setObject(1, at(NOW.minus(5, ChronoUnit.MINUTES)));
                insert.executeUpdate(); // ten refreshes 2.1 s behind their first mark, over its objective of 1 s
            }
            try (PreparedStatement insert = connection.prepareStatement("""
                    INSERT INTO projection_node (instance_id, started_at, last_seen, workers, drainers_busy, claims_held,
                                                 refreshes_per_minute, clock_skew_millis)
                    VALUES (?, ?, ?, 4, ?, ?, ?, ?)""")) {
                node(insert, "node-a", Instant.now().minusSeconds(5), 3, 250, 612, 12);
                node(insert, "node-gone", Instant.now().minusSeconds(3600), 0, 0, 0, -900_000);
            }
            try (PreparedStatement insert = connection.prepareStatement("""
                    INSERT INTO projection_node (instance_id, started_at, last_seen, workers, drainers_busy, claims_held,
                                                 refreshes_per_minute, clock_skew_millis, processing)
                    VALUES (?, ?, ?, 0, ?, ?, ?, ?, FALSE)""")) {
                node(insert, "node-web", Instant.now().minusSeconds(5), 0, 0, 0, 3);
            }
            // what earlier deployments on this server reported would show as instances too (nothing sweeps here)
            statement.executeUpdate("DELETE FROM projection_instance");
            deploys(connection, "node-a", "customer-stats", "order-search");
            // a web node that deploys, besides order-search, a projection no processing instance deploys (a new
            // release's, say): the page says nothing refreshes its marks
            deploys(connection, "node-web", "order-search", "invoice-archive");
            // an instance of the previous release: it records what it deploys, and nothing of what it does
            deploys(connection, "node-old", "order-search");
        }
    }

    @Test
    void aProjectionsPageDrawsItsMinutesAddedUpAcrossInstancesWithAGapWhereNoneReportedAndItsLagsObjective() throws Exception {
        try (Browser browser = new Browser()) {
            WebDriver driver = browser.driver();
            browser.logIn("projection.xhtml?name=order-search", ConsoleUsers.VIEWER, ConsoleUsers.VIEWER_PASSWORD);

            assertThat(driver.findElement(By.id("title")).getText()).isEqualTo("order-search");
            assertThat(title(driver, "backlog-chart")).contains("pending: latest 40, largest 340")
                    .contains("due: latest 20, largest 300");
            assertThat(title(driver, "rate-chart")).as("both instances' refreshes").contains("latest 750, largest 750");
            assertThat(title(driver, "p99-chart")).as("the slower instance's p99").contains("latest 12.5, largest 12.5 ms");
            assertThat(lines(driver, "rate-chart")).as("minute 30 ago splits the line").isEqualTo(2);
            assertThat(driver.findElement(By.id("lag")).getText()).as("median of node-a's, p99 of node-b's")
                    .isEqualTo("33 ms / 1.0 s");
            assertThat(driver.findElement(By.id("lag")).getAttribute("title")).as("57 minutes with a lag, 750 each")
                    .contains("42,750 refreshes of live marks");
            assertThat(driver.findElement(By.id("objective")).getText()).isEqualTo("2s: met, 99 % within 1.0 s");
            assertThat(driver.findElements(By.cssSelector("#settings td code")).stream().map(WebElement::getText))
                    .contains("projection.order-search.batch-size", "projection.order-search.workers",
                            "projection.order-search.lease-time", "projection.workers", "projection.trend-retention");
            browser.screenshot("console-projection");

            driver.findElement(By.id("window-day")).click();
            assertThat(driver.getCurrentUrl()).contains("window=day");
            assertThat(title(driver, "rate-chart")).contains("over the last day").contains("largest 750");
        }
    }

    @Test
    void theOverviewShowsEachProjectionsLastHourAndLagAgainstItsObjectiveAndLinksToItsPage() throws Exception {
        try (Browser browser = new Browser()) {
            WebDriver driver = browser.driver();
            browser.logIn("", ConsoleUsers.VIEWER, ConsoleUsers.VIEWER_PASSWORD);
            WebElement row = driver.findElements(By.cssSelector("#overview\\:projections tbody tr")).stream()
                    .filter(r -> r.findElement(By.cssSelector("td:nth-child(1)")).getText().equals("order-search"))
                    .findFirst().orElseThrow();
            browser.screenshot("console-overview-trends");
            List<WebElement> sparks = row.findElements(By.cssSelector("svg.spark"));
            assertThat(sparks).hasSize(2);
            assertThat(sparks.get(0).findElement(By.tagName("title")).getAttribute("textContent"))
                    .contains("Due marks of order-search").contains("largest 300");

            assertThat(row.findElement(By.cssSelector("[id$=':lag']")).getText()).isEqualTo("33 ms / 1.0 s");
            WebElement customers = driver.findElements(By.cssSelector("#overview\\:projections tbody tr")).stream()
                    .filter(r -> r.findElement(By.cssSelector("td:nth-child(1)")).getText().equals("customer-stats"))
                    .findFirst().orElseThrow().findElement(By.cssSelector("[id$=':lag']"));
            assertThat(customers.getText()).isEqualTo("2.1 s / 2.1 s, over 1s");
            assertThat(customers.getAttribute("class")).contains("lag-missed");
            assertThat(customers.getAttribute("title")).contains("1s: missed, 99 % within 2.1 s");

            row.findElement(By.cssSelector("a.projection-link")).click();
            assertThat(driver.getCurrentUrl()).contains("projection.xhtml").contains("name=order-search");
            assertThat(driver.findElement(By.id("title")).getText()).isEqualTo("order-search");
        }
    }

    @Test
    void theInstancesPageTellsAReportingInstanceFromAGoneOneWithWhatEachIsDoing() throws Exception {
        try (Browser browser = new Browser()) {
            WebDriver driver = browser.driver();
            browser.logIn("instances.xhtml", ConsoleUsers.VIEWER, ConsoleUsers.VIEWER_PASSWORD);
            WebElement live = row(driver, "node-a");
            assertThat(live.findElement(By.className("instance-state")).getText()).isEqualTo("reporting");
            assertThat(live.findElement(By.className("instance-projections")).getText())
                    .isEqualTo("customer-stats, order-search");
            assertThat(live.findElement(By.className("instance-drainers")).getText()).isEqualTo("3 of 4");
            assertThat(live.findElement(By.className("instance-claims")).getText()).isEqualTo("250");
            assertThat(live.findElement(By.className("instance-rate")).getText()).isEqualTo("612");
            assertThat(live.findElement(By.className("instance-skew")).getText()).isEqualTo("+12 ms");
            assertThat(live.findElement(By.className("instance-role")).getText())
                    .as("a row written without the column, as an earlier release does").isEqualTo("processing");
            assertThat(row(driver, "node-web").findElement(By.className("instance-role")).getText())
                    .isEqualTo("web (refreshes nothing)");
            assertThat(driver.findElement(By.id("no-processing")).getText())
                    .as("order-search is node-a's too; invoice-archive is the web node's alone")
                    .contains("deploys invoice-archive:").doesNotContain("order-search");
            WebElement gone = row(driver, "node-gone");
            assertThat(gone.findElement(By.className("instance-state")).getText()).isEqualTo("gone");
            assertThat(gone.findElement(By.className("instance-projections")).getText()).isEqualTo("–");
            assertThat(gone.findElement(By.className("instance-skew")).getAttribute("class")).as("15 min off")
                    .contains("error");
            assertThat(driver.findElements(By.cssSelector("#silent-instances tbody tr")).stream()
                    .map(r -> r.findElement(By.className("silent-id")).getText() + ": "
                            + r.findElement(By.className("silent-projections")).getText()))
                    .as("the previous release's instance, without activity").containsExactly("node-old: order-search");
            assertThat(driver.findElements(By.className("instance-id")).stream().map(WebElement::getText))
                    .doesNotContain("node-old");
            browser.screenshot("console-instances");
        }
    }

    @Test
    void theMarksListNamesTheInstanceHoldingAClaimedMarksLeaseWhileItHolds() throws Exception {
        try (Connection connection = TestDatabase.get().connect()) {
            PendingRows.insertDue(connection, "order-search", "held-by-a");
            PendingRows.insertDue(connection, "order-search", "lease-over");
            try (PreparedStatement claim = connection.prepareStatement("UPDATE projection_pending SET claim_token = 't',"
                    + " claimed_by = 'node-a', claimed_until = ? WHERE projection = 'order-search' AND entity_id = ?")) {
                claim.setObject(1, at(Instant.now().plusSeconds(600)));
                claim.setString(2, "held-by-a");
                claim.executeUpdate();
                claim.setObject(1, at(Instant.now().minusSeconds(600)));
                claim.setString(2, "lease-over");
                claim.executeUpdate();
            }
        }
        try (Browser browser = new Browser()) {
            WebDriver driver = browser.driver();
            browser.logIn("marks.xhtml?projection=order-search", ConsoleUsers.VIEWER, ConsoleUsers.VIEWER_PASSWORD);
            assertThat(holder(driver, "held-by-a")).isEqualTo("by node-a");
            assertThat(holder(driver, "lease-over")).as("its lease is over: nobody holds it").isEmpty();
        } finally {
            TestSql.execute("DELETE FROM projection_pending WHERE entity_id IN ('held-by-a', 'lease-over')");
        }
    }

    private static String holder(WebDriver driver, String id) {
        WebElement line = driver.findElements(By.cssSelector("table tbody tr")).stream()
                .filter(r -> !r.findElements(By.className("mark-id")).isEmpty()
                        && r.findElement(By.className("mark-id")).getText().equals(id))
                .findFirst().orElseThrow(() -> new AssertionError("no line for " + id));
        return line.findElements(By.className("mark-holder")).stream().map(WebElement::getText).findFirst().orElse("");
    }

    private static WebElement row(WebDriver driver, String instance) {
        return driver.findElements(By.cssSelector("#instances tbody tr")).stream()
                .filter(r -> r.findElement(By.className("instance-id")).getText().equals(instance))
                .findFirst().orElseThrow(() -> new AssertionError("no line for " + instance));
    }

    /** The chart's title, which says what it shows (the SVG follows the output's span). */
    private static String title(WebDriver driver, String chart) {
        return chart(driver, chart).findElement(By.tagName("title")).getAttribute("textContent");
    }

    private static int lines(WebDriver driver, String chart) {
        return chart(driver, chart).findElements(By.tagName("polyline")).size();
    }

    private static WebElement chart(WebDriver driver, String chart) {
        return driver.findElement(By.cssSelector("#" + chart + " svg"));
    }

    private static void node(PreparedStatement insert, String id, Instant lastSeen, int busy, int claims, long perMinute,
                             long skew) throws Exception {
        insert.setString(1, id);
        insert.setObject(2, at(lastSeen.minusSeconds(7200)));
        insert.setObject(3, at(lastSeen));
        insert.setInt(4, busy);
        insert.setInt(5, claims);
        insert.setLong(6, perMinute);
        insert.setLong(7, skew);
        insert.executeUpdate();
    }

    /** {@code instance}'s heartbeat rows, as its sweep writes them now: it deploys {@code projections}. */
    private static void deploys(Connection connection, String instance, String... projections) throws Exception {
        try (PreparedStatement insert = connection.prepareStatement(
                "INSERT INTO projection_instance (instance_id, projection, last_seen) VALUES (?, ?, ?)")) {
            for (String projection : projections) {
                insert.setString(1, instance);
                insert.setString(2, projection);
                insert.setObject(3, at(Instant.now()));
                insert.executeUpdate();
            }
        }
    }

    private static OffsetDateTime at(Instant instant) {
        return OffsetDateTime.ofInstant(instant, ZoneOffset.UTC);
    }
}
