package dev.projections.it.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.it.support.Browser;
import dev.projections.it.support.ConsoleUsers;
import dev.projections.it.support.Deployments;
import dev.projections.it.support.TestSql;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebDriverException;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * Rebuilds in the console, in Chromium (docs/contract.md §7, §12): a scoped run in partitions started from the
 * Rebuild… panel, the history and a run's page with its partitions, and a cancel from that page, audited.
 */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class ConsoleRebuildsIT {

    private static final String DEMO = "http://127.0.0.1:8080/demo/api";

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @Deployment(testable = false)
    static EnterpriseArchive deployment() {
        return Deployments.ear(Map.of("projection.sweep-interval", "2s"));
    }

    @Test
    void aScopedRunInPartitionsStartsFromThePanelAndTheHistoryShowsItsScopeAndPartitions() throws Exception {
        String tenant = "console-scoped";
        long first = Long.parseLong(createOrder(tenant, "s-1"));
        createOrder(tenant, "s-2");
        long last = Long.parseLong(createOrder(tenant, "s-3"));
        long audited = TestSql.count("SELECT COALESCE(MAX(id), 0) FROM projection_audit");
        try (Browser browser = new Browser()) {
            WebDriver driver = browser.driver();
            browser.logIn("", ConsoleUsers.ADMIN, ConsoleUsers.ADMIN_PASSWORD);

            button(driver, "order-search", "Rebuild…").click();
            new Select(shown(driver, By.id("overview:tenant"))).selectByVisibleText(tenant);
            driver.findElement(By.id("overview:scope-from")).sendKeys(String.valueOf(first));
            driver.findElement(By.id("overview:scope-to")).sendKeys(String.valueOf(last));
            new Select(driver.findElement(By.id("overview:scope-filter"))).selectByVisibleText("status");
            driver.findElement(By.id("overview:scope-filter-value")).sendKeys("NEW");
            WebElement partitions = driver.findElement(By.id("overview:partitions"));
            partitions.clear();
            partitions.sendKeys("2");
            browser.screenshot("console-rebuild-scoped");
            driver.findElement(By.id("overview:yes")).click();
            wait(driver, 15).until(d -> d.findElement(By.id("overview:messages")).getText().contains("rebuild started: 1 run"));

            driver.findElement(By.id("nav-rebuilds")).click();
            String scope = "ids " + first + ".." + last + " and status=NEW, 2 partitions";
            wait(driver, 90).until(d -> {
                d.navigate().refresh();
                List<WebElement> rows = d.findElements(By.cssSelector("#runs tbody tr"));
                return !rows.isEmpty() && rows.get(0).findElement(By.cssSelector(".run-scope")).getText().equals(scope)
                        && rows.get(0).findElement(By.cssSelector(".run-state")).getText().equals("finished");
            });
            WebElement newest = driver.findElements(By.cssSelector("#runs tbody tr")).get(0);
            assertThat(newest.findElement(By.cssSelector(".run-marked")).getText()).isEqualTo("3");
            assertThat(cells(newest)).contains("order-search", tenant, "admin");
            browser.screenshot("console-rebuild-history");

            newest.findElement(By.cssSelector("a.run-link")).click();
            assertThat(shown(driver, By.id("runpage:scope")).getText()).isEqualTo(scope);
            assertThat(driver.findElements(By.cssSelector("#runpage\\:partitions tbody tr"))).hasSize(2);
            assertThat(driver.findElements(By.cssSelector("#runpage\\:partitions .part-state")))
                    .extracting(WebElement::getText).containsOnly("all ids marked");
            assertThat(driver.findElement(By.id("runpage:failing")).getAttribute("href"))
                    .contains("projection=order-search").contains("tenant=" + tenant).contains("failing=true");
            assertThat(driver.findElements(By.id("runpage:cancel"))).as("a finished run cannot be cancelled").isEmpty();
            browser.screenshot("console-rebuild-run");
        }
        assertThat(TestSql.count("SELECT COUNT(*) FROM projection_audit WHERE action = 'rebuild' AND tenant_id = ?"
                + " AND detail LIKE '%2 partitions%' AND user_name = 'admin' AND id > ?", tenant, audited)).isEqualTo(1);
    }

    @Test
    void aRunningRunIsCancelledFromItsPageAndTheCancelIsAudited() throws Exception {
        String tenant = "console-cancel";
        createOrder(tenant, "c-1");
        long audited = TestSql.count("SELECT COALESCE(MAX(id), 0) FROM projection_audit");
        try (Browser browser = new Browser()) {
            WebDriver driver = browser.driver();
            browser.logIn("", ConsoleUsers.ADMIN, ConsoleUsers.ADMIN_PASSWORD);
            // paused, the projection's run is not stepped: it stays running until cancelled
            button(driver, "customer-stats", "Pause").click();
            wait(driver, 15).until(d -> !d.findElements(By.cssSelector("#overview\\:projections")).isEmpty()
                    && button(d, "customer-stats", "Resume") != null);
            try {
                button(driver, "customer-stats", "Rebuild…").click();
                new Select(shown(driver, By.id("overview:tenant"))).selectByVisibleText(tenant);
                driver.findElement(By.id("overview:yes")).click();
                wait(driver, 15).until(d -> d.findElement(By.id("overview:messages")).getText().contains("rebuild started"));
                shown(driver, By.cssSelector("#overview\\:run-table a.run-link")).click();

                assertThat(shown(driver, By.id("runpage:state")).getText()).isEqualTo("running");
                driver.findElement(By.id("runpage:cancel")).click();
                shown(driver, By.id("runpage:yes")).click();
                wait(driver, 15).until(d -> d.findElement(By.id("runpage:state")).getText().equals("cancelled by admin"));
                assertThat(driver.findElement(By.id("runpage:messages")).getText()).contains("run cancelled");
                assertThat(driver.findElements(By.id("runpage:cancel"))).isEmpty();
                browser.screenshot("console-rebuild-cancelled");
            } finally {
                driver.findElement(By.id("nav-overview")).click();
                wait(driver, 15).until(d -> !d.findElements(By.cssSelector("#overview\\:projections")).isEmpty());
                button(driver, "customer-stats", "Resume").click();
                wait(driver, 15).until(d -> button(d, "customer-stats", "Pause") != null);
            }
        }
        assertThat(TestSql.count("SELECT COUNT(*) FROM projection_audit WHERE action = 'cancel-rebuild' AND tenant_id = ?"
                + " AND projection = 'customer-stats' AND user_name = 'admin' AND id > ?", tenant, audited)).isEqualTo(1);
        assertThat(TestSql.count("SELECT COUNT(*) FROM projection_rebuild WHERE tenant_id = ? AND state = 'CANCELLED'"
                + " AND cancelled_by = 'admin'", tenant)).isEqualTo(1);
    }

    /**
     * Issue 51: a verification started from the projection page's "Verify…" finds exactly the rows damaged behind the
     * engine's back, the drainers repair them, and the page then shows the day's drift and the run.
     */
    @Test
    void aVerificationStartedFromTheProjectionPageFindsTheDamagedRowsAndThePageShowsTheDaysDrift() throws Exception {
        String tenant = "console-verify";
        long first = Long.parseLong(createOrder(tenant, "v-1"));
        long second = Long.parseLong(createOrder(tenant, "v-2"));
        createOrder(tenant, "v-3");
        dev.projections.it.support.Await.until("the three orders refreshed", Duration.ofSeconds(60),
                () -> TestSql.count("SELECT COUNT(*) FROM order_search WHERE tenant_id = ?", tenant) == 3
                        && TestSql.count("SELECT COUNT(*) FROM projection_pending WHERE tenant_id = ?", tenant) == 0);
        long driftBefore = TestSql.count("SELECT COALESCE(SUM(drifted), 0) FROM projection_drift"
                + " WHERE projection = 'order-search'");
        // behind the engine's back, no mark: a row changed and a row deleted
        TestSql.execute("UPDATE order_search SET total = total + 1 WHERE order_id = " + first);
        TestSql.execute("DELETE FROM order_search WHERE order_id = " + second);
        long audited = TestSql.count("SELECT COALESCE(MAX(id), 0) FROM projection_audit");
        try (Browser browser = new Browser()) {
            WebDriver driver = browser.driver();
            browser.logIn("projection.xhtml?name=order-search", ConsoleUsers.ADMIN, ConsoleUsers.ADMIN_PASSWORD);
            shown(driver, By.id("verify")).click();

            assertThat(shown(driver, By.id("overview:question")).getText()).startsWith("Verify order-search?");
            new Select(driver.findElement(By.id("overview:tenant"))).selectByVisibleText(tenant);
            browser.screenshot("console-verify-panel");
            driver.findElement(By.id("overview:yes")).click();
            wait(driver, 15).until(d -> d.findElement(By.id("overview:messages")).getText()
                    .contains("verification started: 1 run"));

            driver.navigate().to(Browser.CONSOLE + "projection.xhtml?name=order-search");
            wait(driver, 90).until(d -> {
                d.navigate().refresh();
                List<WebElement> rows = d.findElements(By.cssSelector("[id$='runs'] tbody tr"));
                return !rows.isEmpty() && rows.get(0).getText().contains("finished");
            });
            assertThat(driver.findElement(By.id("drift-day")).getText()).as("the day's drift, the two damaged rows")
                    .isEqualTo((driftBefore + 2) + " keys");
            browser.screenshot("console-verify-drift");
        }
        assertThat(TestSql.count("SELECT COUNT(*) FROM order_search s JOIN orders o ON o.id = s.order_id"
                + " WHERE s.tenant_id = ? AND s.total = 2.50", tenant)).as("repaired").isEqualTo(3);
        assertThat(TestSql.count("SELECT COUNT(*) FROM projection_rebuild WHERE tenant_id = ? AND kind = 'VERIFY'"
                + " AND marked = 2 AND checked = 5 AND started_by = 'admin'", tenant)).as("3 orders, 2 rows left")
                .isEqualTo(1);
        assertThat(TestSql.count("SELECT COUNT(*) FROM projection_audit WHERE action = 'verify' AND tenant_id = ?"
                + " AND user_name = 'admin' AND id > ?", tenant, audited)).isEqualTo(1);
    }

    private static WebDriverWait wait(WebDriver driver, int seconds) {
        return (WebDriverWait) Browser.waitUpTo(driver, Duration.ofSeconds(seconds)).ignoring(WebDriverException.class);
    }

    /** The element once the page a click asked for has loaded. */
    private static WebElement shown(WebDriver driver, By by) {
        return wait(driver, 15).until(d -> d.findElement(by));
    }

    private static List<String> cells(WebElement row) {
        return row.findElements(By.tagName("td")).stream().map(WebElement::getText).toList();
    }

    /** A projection's button on the overview; {@code null} when it is not shown (or the page is being drawn again). */
    private static WebElement button(WebDriver driver, String projection, String label) {
        return driver.findElements(By.cssSelector("#overview\\:projections tbody tr")).stream()
                .filter(row -> row.findElement(By.cssSelector("td:nth-child(1)")).getText().equals(projection))
                .findFirst()
                .flatMap(row -> row.findElements(By.cssSelector("input[value='" + label + "']")).stream().findFirst())
                .orElse(null);
    }

    private String createOrder(String tenant, String customer) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(DEMO + "/orders"))
                .header("Content-Type", "application/json").header("X-Tenant", tenant)
                .POST(HttpRequest.BodyPublishers.ofString("{\"customer\":\"" + customer
                        + "\",\"lines\":[{\"sku\":\"a\",\"quantity\":1,\"price\":2.5}]}")).build();
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isBetween(200, 201);
        Matcher id = Pattern.compile("\"id\"\\s*:\\s*(\\d+)").matcher(response.body());
        assertThat(id.find()).as(response.body()).isTrue();
        return id.group(1);
    }
}
