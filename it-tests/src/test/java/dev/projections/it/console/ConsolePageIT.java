package dev.projections.it.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.it.support.Browser;
import dev.projections.it.support.ConsoleHttp;
import dev.projections.it.support.ConsoleUsers;
import dev.projections.it.support.Deployments;
import dev.projections.it.support.PendingRows;
import dev.projections.it.support.TestSql;
import dev.projections.testsupport.TestDatabase;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
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
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;

/**
 * The console in a real headless Chromium, with nothing refreshing marks (auto-refresh off), so the pages can be
 * compared with the tables: the login, what a viewer sees and may not do, the overview's and the per-tenant
 * counts, paging through 10,000 marks, and a forged cross-site POST.
 */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class ConsolePageIT {

    @Deployment(testable = false)
    static EnterpriseArchive deployment() {
        return Deployments.ear(Map.of("projection.auto-refresh", "false"));
    }

    @Test
    void anonymousUsersGetTheLoginExceptForHealthAndMetrics() throws Exception {
        ConsoleHttp http = new ConsoleHttp();
        for (String page : List.of("", "index.xhtml", "marks.xhtml", "tenants.xhtml", "audit.xhtml")) {
            HttpResponse<String> response = http.get(page);
            assertThat(response.body()).as(page).contains("j_security_check").doesNotContain("Checked at");
        }
        HttpResponse<String> health = http.get("health");
        assertThat(health.body()).as("health answers without login").startsWith("{").doesNotContain("j_security_check");
        HttpResponse<String> metrics = http.get("metrics");
        assertThat(metrics.statusCode()).isEqualTo(200);
        assertThat(metrics.body()).contains("projection_pending");
        assertThat(http.post("j_security_check", Map.of("j_username", "viewer", "j_password", "wrong"), Map.of()).body())
                .contains("Wrong user or password");
    }

    @Test
    void theViewerSeesTheTablesNumbersAndErrorsAsTextButNoActionButtons() throws Exception {
        insertMark("customer-stats", "", "424242");
        failWith("customer-stats", "", "424243", "<script>document.title='pwned'</script> refresh failed");
        try (Browser browser = new Browser()) {
            WebDriver driver = browser.driver();
            browser.logIn("", ConsoleUsers.VIEWER, ConsoleUsers.VIEWER_PASSWORD);
            assertThat(driver.findElement(By.id("user")).getText()).isEqualTo("viewer");
            for (String projection : List.of("customer-stats", "order-search")) {
                assertThat(cellOf(driver, projection, 2)).as("pending").isEqualTo(
                        number(TestSql.count("SELECT COUNT(*) FROM projection_pending WHERE projection = ?", projection)));
                // other classes' tests on this database may have left parked marks: the cell then names them too
                long parked = TestSql.count(
                        "SELECT COUNT(*) FROM projection_pending WHERE projection = ? AND parked_at IS NOT NULL", projection);
                assertThat(cellOf(driver, projection, 4)).as("failing").isEqualTo(number(TestSql.count(
                        "SELECT COUNT(*) FROM projection_pending WHERE projection = ? AND attempts > 0", projection))
                        + (parked > 0 ? "(" + number(parked) + " parked)" : ""));
            }
            assertThat(cellOf(driver, "customer-stats", 11)).as("last error").contains("<script>document.title='pwned'</script>");
            assertThat(driver.getTitle()).as("the error ran nothing").isEqualTo("Projections");
            assertThat(browser.buttons()).as("a viewer may look, not act").containsExactlyInAnyOrder("Refresh", "Pause updates", "Log out", "Find");
            browser.screenshot("console-overview-viewer");

            driver.get(Browser.CONSOLE + "marks.xhtml?projection=customer-stats&failing=true");
            WebElement error = driver.findElement(By.cssSelector("#marks\\:rows .full-error"));
            assertThat(error.getAttribute("textContent")).contains("<script>document.title='pwned'</script>");
            driver.findElement(By.cssSelector("#marks\\:rows details summary")).click();
            assertThat(error.getText()).contains("<script>");
            assertThat(driver.getTitle()).isEqualTo("Projections");
            assertThat(browser.buttons()).doesNotContain("Retry", "Retry all failing of this projection");
            browser.screenshot("console-failing-viewer");
        }
    }

    @Test
    void theOverviewUpdatesItselfWhenTheTableChanges() throws Exception {
        try (Browser browser = new Browser()) {
            WebDriver driver = browser.driver();
            browser.logIn("", ConsoleUsers.ADMIN, ConsoleUsers.ADMIN_PASSWORD);
            assertThat(browser.buttons()).contains("Pause", "Rebuild…");
            long before = TestSql.count("SELECT COUNT(*) FROM projection_pending WHERE projection = 'order-search'");
            insertMark("order-search", "", "777001");
            String after = number(before + 1);
            Browser.waitUpTo(driver, Duration.ofSeconds(20)).ignoring(StaleElementReferenceException.class)
                    .until(d -> after.equals(cellOf(d, "order-search", 2)));
            browser.screenshot("console-overview-admin");
        }
    }

    @Test
    void thePerTenantTableShowsTheTablesCounts() throws Exception {
        insertMark("order-search", "tenant-a", "1");
        insertMark("order-search", "tenant-a", "2");
        failWith("order-search", "tenant-b", "3", "boom");
        try (Browser browser = new Browser()) {
            WebDriver driver = browser.driver();
            browser.logIn("tenants.xhtml", ConsoleUsers.VIEWER, ConsoleUsers.VIEWER_PASSWORD);
            Map<String, String> shown = new LinkedHashMap<>();
            for (WebElement row : driver.findElements(By.cssSelector("#tenants tbody tr"))) {
                List<WebElement> cells = row.findElements(By.tagName("td"));
                shown.put(cells.get(0).getText() + "/" + cells.get(1).getText(),
                        cells.get(2).getText() + " pending, " + cells.get(3).getText() + " failing");
            }
            Map<String, String> table = new LinkedHashMap<>();
            try (Connection connection = TestDatabase.get().connect();
                 PreparedStatement select = connection.prepareStatement("""
                         SELECT projection, tenant_id, COUNT(*), COUNT(*) FILTER (WHERE attempts > 0)
                           FROM projection_pending GROUP BY projection, tenant_id ORDER BY projection, tenant_id""");
                 ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    String tenant = rows.getString(2).isEmpty() ? "(no tenant)" : rows.getString(2);
                    table.put(rows.getString(1) + "/" + tenant,
                            number(rows.getLong(3)) + " pending, " + number(rows.getLong(4)) + " failing");
                }
            }
            assertThat(shown).isEqualTo(table).containsEntry("order-search/tenant-a", "2 pending, 0 failing")
                    .containsEntry("order-search/tenant-b", "1 pending, 1 failing");
            browser.screenshot("console-tenants");
        }
    }

    @Test
    void pagingThroughTenThousandMarksShowsEachOnceInDueOrderAndGoesBack() throws Exception {
        TestSql.execute("""
                INSERT INTO projection_pending (projection, tenant_id, entity_id, generation, available_at, first_marked_at)
                SELECT 'order-search', 'paging', lpad(i::text, 5, '0'), 'g',
                       now() - INTERVAL '1 hour' + (i / 7) * INTERVAL '1 second', now() - INTERVAL '1 hour'
                  FROM generate_series(1, 10000) AS i""");
        try (Browser browser = new Browser()) {
            WebDriver driver = browser.driver();
            browser.logIn("marks.xhtml?projection=order-search", ConsoleUsers.VIEWER, ConsoleUsers.VIEWER_PASSWORD);
            driver.findElement(By.id("filter-all-tenants")).click();
            driver.findElement(By.id("filter-tenant")).sendKeys("paging");
            driver.findElement(By.id("filter-apply")).click();
            Browser.waitUpTo(driver, Duration.ofSeconds(15)).ignoring(org.openqa.selenium.WebDriverException.class)
                    .until(d -> d.findElement(By.id("marks:count")).getText().equals("10,000"));
            browser.screenshot("console-marks");

            List<List<String>> pages = new ArrayList<>();
            pages.add(idsOn(driver));
            // next and previous are links (a page is a URL); on the last page "next" is plain text
            for (int page = 2; driver.findElement(By.id("marks:next")).getTagName().equals("a"); page++) {
                driver.findElement(By.id("marks:next")).click();
                waitForPage(driver, page);
                pages.add(idsOn(driver));
            }
            List<String> seen = pages.stream().flatMap(List::stream).toList();
            assertThat(seen).hasSize(10_000).doesNotHaveDuplicates();
            assertThat(pages).hasSize(200);
            // due order: ids were given due seconds in id order, so the ids come sorted
            assertThat(seen).isSorted();

            // back a few pages: each exactly as it was seen going forward
            for (int page = 199; page >= 195; page--) {
                driver.findElement(By.id("marks:previous")).click();
                waitForPage(driver, page);
                assertThat(idsOn(driver)).isEqualTo(pages.get(page - 1));
            }
        } finally {
            TestSql.execute("DELETE FROM projection_pending WHERE tenant_id = 'paging'");
        }
    }

    @Test
    void aPostFromAnotherOriginWithoutTheViewStateIsRejectedAndOneWithItWorks() throws Exception {
        ConsoleHttp admin = new ConsoleHttp();
        admin.logIn(ConsoleUsers.ADMIN, ConsoleUsers.ADMIN_PASSWORD);
        String page = admin.get("index.xhtml").body();
        String pauseButton = firstMatch(page, "name=\"(overview:projections:\\d+:pause)\"");
        Map<String, String> pause = new LinkedHashMap<>();
        pause.put("overview", "overview");
        pause.put(pauseButton, "Pause");
        long audited = TestSql.count("SELECT COUNT(*) FROM projection_audit");

        HttpResponse<String> forged = admin.post("index.xhtml", pause, Map.of("Origin", "http://evil.example"));
        Map<String, String> withBadState = new LinkedHashMap<>(pause);
        withBadState.put("jakarta.faces.ViewState", "-4242424242:4242424242");
        HttpResponse<String> guessed = admin.post("index.xhtml", withBadState, Map.of("Origin", "http://evil.example"));
        assertThat(guessed.body()).contains("This page has expired");
        assertThat(guessed.statusCode()).as("an expired view is a normal condition, not a server error").isEqualTo(200);
        assertThat(TestSql.count("SELECT COUNT(*) FROM projection_control WHERE paused")).as(forged.body()).isZero();
        assertThat(TestSql.count("SELECT COUNT(*) FROM projection_audit")).isEqualTo(audited);

        // the same POST with the view state the server issued to this session does pause: the forged ones were
        // refused for their missing state, not for a wrong field
        Map<String, String> genuine = new LinkedHashMap<>(pause);
        genuine.put("jakarta.faces.ViewState", firstMatch(page, "name=\"jakarta.faces.ViewState\"[^>]*value=\"([^\"]+)\""));
        admin.post("index.xhtml", genuine, Map.of());
        assertThat(TestSql.count("SELECT COUNT(*) FROM projection_control WHERE paused AND paused_by = 'admin'"))
                .isEqualTo(1);
        TestSql.execute("UPDATE projection_control SET paused = false");
    }

    /** Waits until the page shown is {@code page} (the click reloads the document under the driver). */
    private static void waitForPage(WebDriver driver, int page) {
        String expected = String.valueOf(page);
        Browser.waitUpTo(driver, Duration.ofSeconds(15)).ignoring(org.openqa.selenium.WebDriverException.class)
                .until(d -> expected.equals(d.findElement(By.id("marks:page")).getText()));
    }

    private static String firstMatch(String text, String regex) {
        Matcher matcher = Pattern.compile(regex).matcher(text);
        assertThat(matcher.find()).as(regex).isTrue();
        return matcher.group(1);
    }

    /**
     * The ids shown, read in one script call: fifty WebDriver calls a page (one per cell's text) made the paging
     * test CI's slowest class. {@code innerText} is the rendered text, as {@code getText} gives it.
     */
    @SuppressWarnings("unchecked")
    private static List<String> idsOn(WebDriver driver) {
        return ((List<Object>) ((org.openqa.selenium.JavascriptExecutor) driver).executeScript(
                "return Array.from(document.querySelectorAll('#marks\\\\:rows .mark-id'), e => e.innerText.trim());"))
                .stream().map(String::valueOf).toList();
    }

    private static String number(long value) {
        return java.text.NumberFormat.getIntegerInstance(java.util.Locale.ENGLISH).format(value);
    }

    private static String cellOf(WebDriver driver, String projection, int column) {
        return driver.findElements(By.cssSelector("#overview\\:projections tbody tr")).stream()
                .filter(row -> row.findElement(By.cssSelector("td:nth-child(1)")).getText().equals(projection))
                .map(row -> row.findElement(By.cssSelector("td:nth-child(" + column + ")")).getAttribute("textContent").trim())
                .findFirst().orElse("missing");
    }

    private static void insertMark(String projection, String tenant, String id) throws Exception {
        try (Connection connection = TestDatabase.get().connect()) {
            PendingRows.insertDue(connection, projection, id);
            try (PreparedStatement update = connection.prepareStatement(
                    "UPDATE projection_pending SET tenant_id = ? WHERE projection = ? AND tenant_id = '' AND entity_id = ?")) {
                update.setString(1, tenant);
                update.setString(2, projection);
                update.setString(3, id);
                update.executeUpdate();
            }
        }
    }

    private static void failWith(String projection, String tenant, String id, String error) throws Exception {
        insertMark(projection, tenant, id);
        try (Connection connection = TestDatabase.get().connect();
             PreparedStatement update = connection.prepareStatement(
                     "UPDATE projection_pending SET attempts = 1, last_error = ?, last_failed_at = available_at,"
                             + " available_at = available_at + INTERVAL '1 hour'"
                             + " WHERE projection = ? AND tenant_id = ? AND entity_id = ?")) {
            update.setString(1, error);
            update.setString(2, projection);
            update.setString(3, tenant);
            update.setString(4, id);
            update.executeUpdate();
        }
    }
}
