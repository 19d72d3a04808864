package dev.projections.it.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.it.support.Await;
import dev.projections.it.support.Browser;
import dev.projections.it.support.ConsoleUsers;
import dev.projections.it.support.Deployments;
import dev.projections.it.support.TestSql;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
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

/**
 * The admin's actions in a real headless Chromium, with the engine refreshing: retry of a failing mark made with
 * the demo's fault switch, a rebuild behind its confirmation with progress down to zero, pause and resume — each
 * found in the audit log under the admin's name. Failed refreshes back off 10 minutes, so only "Retry" can bring
 * a failing mark back within the test.
 */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class ConsoleActionsIT {

    private static final String DEMO = "http://127.0.0.1:8080/demo/api";
    private static final String SCRIPT = "<script>document.title='pwned'</script>";

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @Deployment(testable = false)
    static EnterpriseArchive deployment() {
        return Deployments.ear(Map.of("projection.retry-delay", "10m", "projection.max-retry-delay", "20m",
                "projection.sweep-interval", "2s"));
    }

    @Test
    void aFailingMarkShowsItsErrorAsTextAndRetryRefreshesItOnceTheFaultIsCleared() throws Exception {
        // a tenant of its own, and no rebuild of another class still refreshing: the fault hits this order's refresh
        Await.until("no rebuild of order-search running", Duration.ofSeconds(90), () -> TestSql.count(
                "SELECT COUNT(*) FROM projection_rebuild WHERE projection = 'order-search' AND state = 'RUNNING'") == 0);
        String tenant = "console-retry";
        fault("order-search", 1000, SCRIPT + " search index unavailable");
        // by tenant too: order ids restart on a fresh database, and another class's marks may carry the same id
        String id = createOrder(tenant, "console-retry");
        Await.until("the refresh of order " + id + " failed", () -> TestSql.count(
                "SELECT COUNT(*) FROM projection_pending WHERE projection = 'order-search' AND tenant_id = ?"
                        + " AND entity_id = ? AND attempts > 0", tenant, id) == 1);
        try (Browser browser = new Browser()) {
            WebDriver driver = browser.driver();
            browser.logIn("marks.xhtml?projection=order-search&failing=true&tenant=" + tenant, ConsoleUsers.ADMIN,
                    ConsoleUsers.ADMIN_PASSWORD);
            WebElement row = rowOf(driver, id);
            assertThat(row.findElement(By.cssSelector(".full-error")).getAttribute("textContent"))
                    .contains(SCRIPT + " search index unavailable");
            assertThat(driver.getTitle()).as("the error ran nothing").isEqualTo("Projections");
            browser.screenshot("console-failing-admin");

            fault("order-search", 0, "cleared");
            rowOf(driver, id).findElement(By.cssSelector("input[value='Retry']")).click();
            Browser.waitUpTo(driver, Duration.ofSeconds(15)).ignoring(WebDriverException.class)
                    .until(d -> d.findElement(By.id("marks:messages")).getText().contains("is due again"));
            Await.until("order " + id + " refreshed after the retry", () -> TestSql.count(
                    "SELECT COUNT(*) FROM projection_pending WHERE projection = 'order-search' AND tenant_id = ?"
                            + " AND entity_id = ?", tenant, id) == 0);
            assertThat(TestSql.count("SELECT COUNT(*) FROM order_search WHERE order_id = ?", Long.parseLong(id))).isEqualTo(1);
            driver.findElement(By.id("filter-apply")).click();
            Browser.waitUpTo(driver, Duration.ofSeconds(15)).ignoring(WebDriverException.class)
                    .until(d -> ids(d).stream().noneMatch(id::equals));

            driver.get(Browser.CONSOLE + "audit.xhtml");
            List<String> newest = cells(driver.findElement(By.cssSelector("#audit\\:entries tbody tr")));
            assertThat(newest.subList(1, 6)).containsExactly("admin", "retry", "order-search", tenant, id);
            browser.screenshot("console-audit");
        } finally {
            fault("order-search", 0, "cleared"); // a failure above must not leave later tests' refreshes failing
        }
    }

    @Test
    void aRebuildAsksForConfirmationThenShowsItsProgressDownToZero() throws Exception {
        // one tenant of its own, so the run covers this test's orders whatever other classes left in the tables
        String tenant = "console-rebuild";
        createOrder(tenant, "rebuild-1");
        createOrder(tenant, "rebuild-2");
        createOrder(tenant, "rebuild-3");
        long runsBefore = TestSql.count("SELECT COUNT(*) FROM projection_rebuild");
        long audited = TestSql.count("SELECT COALESCE(MAX(id), 0) FROM projection_audit");
        try (Browser browser = new Browser()) {
            WebDriver driver = browser.driver();
            browser.logIn("", ConsoleUsers.ADMIN, ConsoleUsers.ADMIN_PASSWORD);

            button(driver, "order-search", "Rebuild…").click();
            assertThat(shown(driver, By.id("overview:question")).getText()).startsWith("Rebuild order-search?");
            driver.findElement(By.id("overview:no")).click();
            Browser.waitUpTo(driver, Duration.ofSeconds(15)).ignoring(WebDriverException.class)
                    .until(d -> d.findElements(By.id("overview:confirm")).isEmpty()
                            && !d.findElements(By.id("overview:projections")).isEmpty());
            assertThat(TestSql.count("SELECT COUNT(*) FROM projection_rebuild")).as("cancelled").isEqualTo(runsBefore);

            button(driver, "order-search", "Rebuild…").click();
            Select tenants = new Select(shown(driver, By.id("overview:tenant")));
            assertThat(TestSql.count("SELECT COUNT(*) FROM projection_rebuild")).as("only asked").isEqualTo(runsBefore);
            assertThat(tenants.getFirstSelectedOption().getText()).isEqualTo("all tenants");
            tenants.selectByVisibleText(tenant);
            browser.screenshot("console-rebuild-confirm");
            driver.findElement(By.id("overview:yes")).click();
            Browser.waitUpTo(driver, Duration.ofSeconds(15)).ignoring(WebDriverException.class)
                    .until(d -> d.findElement(By.id("overview:messages")).getText().contains("rebuild started: 1 run"));
            assertThat(driver.findElements(By.cssSelector("#overview\\:run-table tbody tr"))).hasSize(1);

            // the page updates itself every 5 s: wait for the run to be finished with nothing remaining
            Browser.waitUpTo(driver, Duration.ofSeconds(90)).ignoring(WebDriverException.class).until(d ->
                    texts(d, "#overview\\:run-table .run-state").equals(List.of("finished"))
                            && texts(d, "#overview\\:run-table .run-remaining").equals(List.of("0")));
            assertThat(texts(driver, "#overview\\:run-table .run-marked")).containsExactly(
                    String.valueOf(TestSql.count("SELECT COUNT(*) FROM orders WHERE tenant_id = ?", tenant)));
            // the rebuild's refreshes show in this instance's refreshes/min
            Browser.waitUpTo(driver, Duration.ofSeconds(15)).ignoring(WebDriverException.class)
                    .until(d -> cellsOf(d, "order-search").size() > 5 && !cellsOf(d, "order-search").get(5).equals("0"));
            browser.screenshot("console-rebuild-finished");
            assertThat(TestSql.count("SELECT COUNT(*) FROM projection_audit WHERE action = 'rebuild' AND tenant_id = ?"
                    + " AND user_name = 'admin' AND projection = 'order-search' AND id > ?", tenant, audited)).isEqualTo(1);
        }
    }

    @Test
    void theTenantMenuKeepsAllTenantsApartFromATenantNamedStarAndRebuildsTheEmptyTenant() throws Exception {
        createOrder("*", "star-tenant");
        createOrder("", "no-tenant");
        long audited = TestSql.count("SELECT COALESCE(MAX(id), 0) FROM projection_audit");
        try (Browser browser = new Browser()) {
            WebDriver driver = browser.driver();
            browser.logIn("", ConsoleUsers.ADMIN, ConsoleUsers.ADMIN_PASSWORD);

            button(driver, "customer-stats", "Rebuild…").click();
            Select tenants = new Select(shown(driver, By.id("overview:tenant")));
            List<String> labels = tenants.getOptions().stream().map(WebElement::getText).toList();
            assertThat(labels).containsOnlyOnce("all tenants", "*", "(no tenant)");
            tenants.selectByVisibleText("*");
            driver.findElement(By.id("overview:yes")).click();
            Browser.waitUpTo(driver, Duration.ofSeconds(15)).ignoring(WebDriverException.class)
                    .until(d -> d.findElement(By.id("overview:messages")).getText().contains("rebuild started: 1 run"));

            button(driver, "customer-stats", "Rebuild…").click();
            new Select(shown(driver, By.id("overview:tenant"))).selectByVisibleText("(no tenant)");
            driver.findElement(By.id("overview:yes")).click();
            Browser.waitUpTo(driver, Duration.ofSeconds(15)).ignoring(WebDriverException.class)
                    .until(d -> texts(d, "#overview\\:run-table .run-state").size() == 2);
            assertThat(driver.findElement(By.id("overview:messages")).getText())
                    .contains("rebuild started: 1 run").doesNotContain("must not be null");
            Browser.waitUpTo(driver, Duration.ofSeconds(90)).ignoring(WebDriverException.class).until(d ->
                    texts(d, "#overview\\:run-table .run-state").equals(List.of("finished", "finished")));
        }
        assertThat(TestSql.count("SELECT COUNT(*) FROM projection_audit WHERE action = 'rebuild'"
                + " AND projection = 'customer-stats' AND id > ?", audited)).as("one run per choice").isEqualTo(2);
        assertThat(TestSql.count("SELECT COUNT(*) FROM projection_audit WHERE action = 'rebuild' AND tenant_id = '*'"
                + " AND projection = 'customer-stats' AND id > ?", audited)).isEqualTo(1);
        assertThat(TestSql.count("SELECT COUNT(*) FROM projection_audit WHERE action = 'rebuild' AND tenant_id = ''"
                + " AND projection = 'customer-stats' AND id > ?", audited)).isEqualTo(1);
    }

    @Test
    void parkedMarksAreResumedAndSkippedFromTheMarksPageOneByOneAndAllAtOnce() throws Exception {
        String tenant = "console-parked";
        String resumed = parkAnOrder(tenant, "parked-resume");
        long audited = TestSql.count("SELECT COALESCE(MAX(id), 0) FROM projection_audit");
        String page = Browser.CONSOLE + "marks.xhtml?projection=order-search&failing=true&state=PARKED&tenant=" + tenant;
        try (Browser browser = new Browser()) {
            WebDriver driver = browser.driver();
            browser.logInAt(page, ConsoleUsers.ADMIN, ConsoleUsers.ADMIN_PASSWORD);
            WebElement row = rowOf(driver, resumed);
            assertThat(cells(row).get(2)).isEqualTo("parked");
            browser.screenshot("console-parked");
            row.findElement(By.cssSelector("input[value='Resume']")).click();
            Browser.waitUpTo(driver, Duration.ofSeconds(15)).ignoring(WebDriverException.class)
                    .until(d -> d.findElement(By.id("marks:messages")).getText().contains("1 parked marks of order-search resumed"));
            Await.until("the resumed mark refreshed", () -> TestSql.count("SELECT COUNT(*) FROM projection_pending"
                    + " WHERE projection = 'order-search' AND tenant_id = ? AND entity_id = ?", tenant, resumed) == 0);

            String skipped = parkAnOrder(tenant, "parked-skip");
            driver.get(page);
            rowOf(driver, skipped).findElement(By.cssSelector("input[value='Skip…']")).click();
            driver.switchTo().alert().accept();
            Browser.waitUpTo(driver, Duration.ofSeconds(15)).ignoring(WebDriverException.class)
                    .until(d -> d.findElement(By.id("marks:messages")).getText().contains("1 parked marks of order-search skipped"));
            assertThat(TestSql.count("SELECT COUNT(*) FROM projection_pending WHERE projection = 'order-search'"
                    + " AND tenant_id = ? AND entity_id = ?", tenant, skipped)).isZero();

            List<String> both = List.of(parkAnOrder(tenant, "parked-all-1"), parkAnOrder(tenant, "parked-all-2"));
            driver.get(page);
            WebElement resumeAll = shown(driver, By.id("marks:resume-all"));
            assertThat(resumeAll.getAttribute("value")).as("the bulk action names its count").isEqualTo(
                    "Resume these 2 parked marks");
            resumeAll.click();
            Await.until("both resumed marks refreshed", () -> TestSql.count("SELECT COUNT(*) FROM projection_pending"
                    + " WHERE projection = 'order-search' AND tenant_id = ?", tenant) == 0);
            assertThat(both).hasSize(2);
        }
        assertThat(TestSql.count("SELECT COUNT(*) FROM projection_audit WHERE id > ? AND user_name = 'admin'"
                + " AND action = 'resume-parked' AND projection = 'order-search'", audited)).isEqualTo(2);
        assertThat(TestSql.count("SELECT COUNT(*) FROM projection_audit WHERE id > ? AND user_name = 'admin'"
                + " AND action = 'skip-parked' AND tenant_id = ? AND detail LIKE '%parked by the console test%'",
                audited, tenant)).isEqualTo(1);
    }

    @Test
    void parkedMarksAreGroupedByErrorOneGroupIsResumedAloneAndAnIdIsFoundAcrossProjections() throws Exception {
        String tenant = "console-groups";
        List<String> timeouts = List.of(parkAnOrder(tenant, "groups-1", "search timed out after 30 s"),
                parkAnOrder(tenant, "groups-2", "search timed out after 31 s"));
        String mapping = parkAnOrder(tenant, "groups-3", "mapping rejected");
        String prefix = "dev.projections.NonRetryableRefreshException: search timed out after ";
        try (Browser browser = new Browser()) {
            WebDriver driver = browser.driver();
            browser.logIn("marks.xhtml?projection=order-search&failing=true&state=PARKED&tenant=" + tenant,
                    ConsoleUsers.ADMIN, ConsoleUsers.ADMIN_PASSWORD);
            List<List<String>> groups = driver.findElements(By.cssSelector("#marks\\:error-groups tbody tr")).stream()
                    .map(ConsoleActionsIT::cells).toList();
            // a cell's text is trimmed: the head itself ends with the space before the number
            assertThat(groups).containsExactly(List.of("2", prefix.trim()),
                    List.of("1", "dev.projections.NonRetryableRefreshException: mapping rejected"));
            browser.screenshot("console-top-errors");

            driver.findElement(By.cssSelector("#marks\\:error-groups tbody tr a")).click();
            WebElement resumeAll = shown(driver, By.id("marks:resume-all"));
            assertThat(ids(driver)).containsExactlyInAnyOrderElementsOf(timeouts);
            assertThat(resumeAll.getAttribute("value")).isEqualTo("Resume these 2 parked marks");

            // one more of the group parked while the operator looked: "these 2" no longer holds, nothing is done
            String late = parkAnOrder(tenant, "groups-4", "search timed out after 32 s");
            resumeAll.click();
            Browser.waitUpTo(driver, Duration.ofSeconds(15)).ignoring(WebDriverException.class)
                    .until(d -> d.findElement(By.id("marks:messages")).getText().contains("The list changed"));
            assertThat(TestSql.count("SELECT COUNT(*) FROM projection_pending WHERE projection = 'order-search'"
                    + " AND tenant_id = ? AND parked_at IS NOT NULL", tenant)).as("none resumed").isEqualTo(4);
            resumeAll = shown(driver, By.id("marks:resume-all"));
            assertThat(resumeAll.getAttribute("value")).isEqualTo("Resume these 3 parked marks");
            resumeAll.click();
            Await.until("the group's marks refreshed", () -> TestSql.count("SELECT COUNT(*) FROM projection_pending"
                    + " WHERE projection = 'order-search' AND tenant_id = ? AND entity_id IN (?, ?, ?)", tenant,
                    timeouts.get(0), timeouts.get(1), late) == 0);
            assertThat(TestSql.count("SELECT COUNT(*) FROM projection_pending WHERE projection = 'order-search'"
                    + " AND tenant_id = ? AND entity_id = ? AND parked_at IS NOT NULL", tenant, mapping))
                    .as("the other group's mark stays parked").isEqualTo(1);

            // the search box of every page: a GET URL, listing the id's marks wherever they are
            driver.findElement(By.id("find-id")).sendKeys(mapping);
            driver.findElement(By.id("find-go")).click();
            shown(driver, By.id("found"));
            assertThat(driver.getCurrentUrl()).endsWith("find.xhtml?id=" + mapping);
            List<List<String>> found = driver.findElements(By.cssSelector("#found tbody tr")).stream()
                    .map(ConsoleActionsIT::cells).filter(cells -> cells.get(1).equals(tenant)).toList();
            assertThat(found).hasSize(1);
            assertThat(found.get(0).subList(0, 3)).containsExactly("order-search", tenant, "parked");
            browser.screenshot("console-find");

            driver.get(Browser.CONSOLE + "find.xhtml?id=no-such-id");
            assertThat(shown(driver, By.id("none")).getText()).contains("No mark of this id");
        } finally {
            TestSql.execute("DELETE FROM projection_pending WHERE projection = 'order-search' AND tenant_id = '"
                    + tenant + "'");
        }
    }

    @Test
    void aProjectionSuspendedByAnOutageIsListedWithItsReasonAndResumedFromTheOverview() throws Exception {
        String tenant = "console-suspended";
        long audited = TestSql.count("SELECT COALESCE(MAX(id), 0) FROM projection_audit");
        failAll("customer-stats", true);
        try {
            // ten customers failing in a minute, every refresh failing: the default thresholds suspend it
            for (int i = 0; i < 12; i++) {
                createOrder(tenant, "suspended-" + i);
            }
            Await.until("customer-stats suspended", Duration.ofSeconds(60), () -> TestSql.count(
                    "SELECT COUNT(*) FROM projection_control WHERE projection = 'customer-stats'"
                            + " AND suspended_reason IS NOT NULL") == 1);
            // still down while the page is read: a probe that succeeded would lift the suspension before the click
            try (Browser browser = new Browser()) {
                WebDriver driver = browser.driver();
                browser.logIn("", ConsoleUsers.ADMIN, ConsoleUsers.ADMIN_PASSWORD);
                WebElement line = shown(driver, By.cssSelector("#overview\\:suspended-table tbody tr"));
                assertThat(cells(line).get(0)).isEqualTo("customer-stats");
                assertThat(line.findElement(By.cssSelector(".suspended-reason")).getText())
                        .contains("refreshes in the last minute failed").contains("search backend down");
                browser.screenshot("console-suspended");
                line.findElement(By.cssSelector("input[value='Resume']")).click();
                Browser.waitUpTo(driver, Duration.ofSeconds(15)).ignoring(WebDriverException.class)
                        .until(d -> d.findElements(By.id("overview:suspended-table")).isEmpty());
            }
            failAll("customer-stats", false);
            assertThat(TestSql.count("SELECT COUNT(*) FROM projection_control WHERE projection = 'customer-stats'"
                    + " AND (paused OR suspended_reason IS NOT NULL)")).isZero();
            assertThat(TestSql.count("SELECT COUNT(*) FROM projection_audit WHERE id > ? AND user_name = 'admin'"
                    + " AND action = 'resume' AND projection = 'customer-stats'", audited)).isEqualTo(1);
        } finally {
            failAll("customer-stats", false);
            // the failed keys back off 10 minutes (this class's retry delay): due now, for the classes after this one
            TestSql.execute("UPDATE projection_pending SET available_at = CURRENT_TIMESTAMP"
                    + " WHERE projection = 'customer-stats' AND parked_at IS NULL");
        }
    }

    private void failAll(String projection, boolean on) throws Exception {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(DEMO + "/faults/" + projection
                        + "?failAll=" + on + "&message=search+backend+down"))
                .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    }

    private String parkAnOrder(String tenant, String customer) throws Exception {
        return parkAnOrder(tenant, customer, "parked by the console test");
    }

    /** An order whose order-search refresh fails for good with {@code message}: its mark is parked at once. */
    private String parkAnOrder(String tenant, String customer, String message) throws Exception {
        // the fault hits order-search's next refresh, whichever: none other may be due when it is set
        Await.until("no order-search mark due", () -> TestSql.count("SELECT COUNT(*) FROM projection_pending"
                + " WHERE projection = 'order-search' AND available_at <= CURRENT_TIMESTAMP") == 0);
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(DEMO
                        + "/faults/order-search?failNext=1&nonRetryable=true&message="
                        + URLEncoder.encode(message, StandardCharsets.UTF_8)))
                .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        String id = createOrder(tenant, customer);
        Await.until("order " + id + "'s mark parked", () -> TestSql.count("SELECT COUNT(*) FROM projection_pending"
                + " WHERE projection = 'order-search' AND tenant_id = ? AND entity_id = ? AND parked_at IS NOT NULL",
                tenant, id) == 1);
        return id;
    }

    @Test
    void pauseAndResumeReachTheTableAndTheAuditLog() throws Exception {
        long audited = TestSql.count("SELECT COALESCE(MAX(id), 0) FROM projection_audit");
        try (Browser browser = new Browser()) {
            WebDriver driver = browser.driver();
            browser.logIn("", ConsoleUsers.ADMIN, ConsoleUsers.ADMIN_PASSWORD);
            button(driver, "customer-stats", "Pause").click();
            Browser.waitUpTo(driver, Duration.ofSeconds(15)).ignoring(WebDriverException.class)
                    .until(d -> cellsOf(d, "customer-stats").size() > 8 && cellsOf(d, "customer-stats").get(8).equals("paused"));
            assertThat(TestSql.count("SELECT COUNT(*) FROM projection_control WHERE projection = 'customer-stats'"
                    + " AND paused AND paused_by = 'admin'")).isEqualTo(1);
            button(driver, "customer-stats", "Resume").click();
            Browser.waitUpTo(driver, Duration.ofSeconds(15)).ignoring(WebDriverException.class)
                    .until(d -> cellsOf(d, "customer-stats").size() > 8 && cellsOf(d, "customer-stats").get(8).equals("running"));
            assertThat(TestSql.count("SELECT COUNT(*) FROM projection_control WHERE projection = 'customer-stats'"
                    + " AND paused")).isZero();
            assertThat(TestSql.count("SELECT COUNT(*) FROM projection_audit WHERE projection = 'customer-stats'"
                    + " AND user_name = 'admin' AND action IN ('pause', 'resume') AND id > ?", audited)).isEqualTo(2);
        }
    }

    /** The element once the page a click asked for has loaded. */
    private static WebElement shown(WebDriver driver, By by) {
        return Browser.waitUpTo(driver, Duration.ofSeconds(15)).ignoring(WebDriverException.class)
                .until(d -> d.findElement(by));
    }

    private static WebElement rowOf(WebDriver driver, String id) {
        return driver.findElements(By.cssSelector("#marks\\:rows tbody tr")).stream()
                .filter(row -> row.findElement(By.cssSelector(".mark-id")).getText().equals(id))
                .findFirst().orElseThrow(() -> new AssertionError("no row for mark " + id + " in " + ids(driver)));
    }

    private static List<String> ids(WebDriver driver) {
        return driver.findElements(By.cssSelector("#marks\\:rows .mark-id")).stream().map(WebElement::getText).toList();
    }

    private static List<String> texts(WebDriver driver, String css) {
        return driver.findElements(By.cssSelector(css)).stream().map(WebElement::getText).toList();
    }

    private static List<String> cells(WebElement row) {
        return row.findElements(By.tagName("td")).stream().map(WebElement::getText).toList();
    }

    /** The row's cells; none while the page a click asked for is still loading (the waits poll again). */
    private static List<String> cellsOf(WebDriver driver, String projection) {
        return driver.findElements(By.cssSelector("#overview\\:projections tbody tr")).stream().map(ConsoleActionsIT::cells)
                .filter(cells -> !cells.isEmpty() && cells.get(0).equals(projection)).findFirst().orElse(List.of());
    }

    private static WebElement button(WebDriver driver, String projection, String label) {
        return driver.findElements(By.cssSelector("#overview\\:projections tbody tr")).stream()
                .filter(row -> row.findElement(By.cssSelector("td:nth-child(1)")).getText().equals(projection))
                .findFirst().orElseThrow().findElement(By.cssSelector("input[value='" + label + "']"));
    }

    private void fault(String projection, int failNext, String message) throws Exception {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(DEMO + "/faults/" + projection
                        + "?failNext=" + failNext + "&message=" + URLEncoder.encode(message, StandardCharsets.UTF_8)))
                .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    }

    private String createOrder(String tenant, String customer) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(DEMO + "/orders"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"customer\":\"" + customer
                        + "\",\"lines\":[{\"sku\":\"a\",\"quantity\":1,\"price\":2.5}]}"));
        if (!tenant.isEmpty()) {
            request.header("X-Tenant", tenant);
        }
        HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isBetween(200, 201);
        Matcher id = Pattern.compile("\"id\"\\s*:\\s*(\\d+)").matcher(response.body());
        assertThat(id.find()).as(response.body()).isTrue();
        return id.group(1);
    }
}
