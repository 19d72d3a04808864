package dev.projections.it.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.it.support.Browser;
import dev.projections.it.support.ConsoleHttp;
import dev.projections.it.support.ConsoleUsers;
import dev.projections.it.support.Deployments;
import dev.projections.it.support.TestSql;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
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

/**
 * Console pages as links one can share (docs/contract.md §12): a filtered mark list's page 2 opened from its URL in
 * another browser session shows the same rows; next and previous are links; a cut position shows the first page with
 * a message; an action keeps the URL; the audit log's filters are URLs and its CSV export is quoted, neutralised and
 * behind the login. Nothing refreshes marks (auto-refresh off), so the lists hold still.
 */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class ConsoleBookmarksIT {

    private static final String TENANT = "bookmarks";

    @Deployment(testable = false)
    static EnterpriseArchive deployment() {
        return Deployments.ear(Map.of("projection.auto-refresh", "false"));
    }

    @Test
    void pageTwoOfAFilteredListOpenedFromItsUrlInAnotherSessionShowsTheSameRowsAndPagesBackByLink() throws Exception {
        // 120 failing marks of one tenant, 60 of another and 30 pending ones of the same tenant: the filter keeps 120
        failing(TENANT, 120, "search timed out");
        failing("bookmarks-other", 60, "search timed out");
        TestSql.execute("""
                INSERT INTO projection_pending (projection, tenant_id, entity_id, generation, available_at, first_marked_at)
                SELECT 'order-search', 'bookmarks', 'pending-' || i, 'g', now(), now() FROM generate_series(1, 30) AS i""");
        String list = "marks.xhtml?projection=order-search&failing=true&tenant=" + TENANT;
        try (Browser first = new Browser(); Browser second = new Browser()) {
            WebDriver driver = first.driver();
            first.logIn(list, ConsoleUsers.VIEWER, ConsoleUsers.VIEWER_PASSWORD);
            assertThat(text(driver, "marks:count")).isEqualTo("120");
            List<String> pageOne = ids(driver);
            assertThat(pageOne).hasSize(50).allMatch(id -> id.startsWith("f-"));
            driver.findElement(By.id("marks:next")).click();
            waitForPage(driver, 2);
            List<String> pageTwo = ids(driver);
            String shared = driver.getCurrentUrl();
            assertThat(shared).contains("tenant=" + TENANT).contains("failing=true").contains("after=")
                    .contains("page=2");
            assertThat(pageTwo).hasSize(50).doesNotContainAnyElementsOf(pageOne);

            // another browser, another session: the login leads to the shared URL, and it shows the same rows
            WebDriver other = second.driver();
            second.logInAt(shared, ConsoleUsers.ADMIN, ConsoleUsers.ADMIN_PASSWORD);
            assertThat(other.getCurrentUrl()).isEqualTo(shared);
            assertThat(text(other, "marks:page")).isEqualTo("2");
            assertThat(ids(other)).isEqualTo(pageTwo);
            other.findElement(By.id("marks:next")).click();
            waitForPage(other, 3);
            assertThat(ids(other)).hasSize(20);
            assertThat(other.findElement(By.id("marks:next")).getTagName()).as("no page after the last").isNotEqualTo("a");
            other.findElement(By.id("marks:previous")).click();
            waitForPage(other, 2);
            assertThat(ids(other)).isEqualTo(pageTwo);
            other.findElement(By.id("marks:previous")).click();
            waitForPage(other, 1);
            assertThat(ids(other)).isEqualTo(pageOne);
            assertThat(other.getCurrentUrl()).doesNotContain("after=").doesNotContain("before=");

            // an action posts to the view and shows the same URL again, with its message
            other.get(shared);
            WebElement retry = other.findElements(By.cssSelector("#marks\\:rows tbody tr")).get(0)
                    .findElement(By.cssSelector("input[value='Retry']"));
            retry.click();
            Browser.waitUpTo(other, Duration.ofSeconds(15)).ignoring(WebDriverException.class)
                    .until(d -> d.findElement(By.id("marks:messages")).getText().contains("is due again"));
            assertThat(other.getCurrentUrl()).isEqualTo(shared);
            assertThat(text(other, "marks:page")).isEqualTo("2");
        } finally {
            TestSql.execute("DELETE FROM projection_pending WHERE tenant_id IN ('bookmarks', 'bookmarks-other')");
        }
    }

    @Test
    void theEmptyTenantIsAListOfItsOwnAndTheFilterFormWritesItsUrl() throws Exception {
        failing("", 3, "bookmark-empty-tenant failure");
        failing(TENANT, 2, "bookmark-empty-tenant failure");
        try (Browser browser = new Browser()) {
            WebDriver driver = browser.driver();
            browser.logIn("marks.xhtml?projection=order-search&failing=true&tenant=&error=bookmark-empty-tenant",
                    ConsoleUsers.VIEWER, ConsoleUsers.VIEWER_PASSWORD);
            assertThat(ids(driver)).containsExactly("f-001", "f-002", "f-003");
            assertThat(driver.findElement(By.id("filter-all-tenants")).isSelected()).isFalse();

            // the same list for every tenant, chosen in the GET form: its fields become the URL
            driver.findElement(By.id("filter-all-tenants")).click();
            driver.findElement(By.id("filter-apply")).click();
            Browser.waitUpTo(driver, Duration.ofSeconds(15)).ignoring(WebDriverException.class)
                    .until(d -> d.getCurrentUrl().contains("tenants=all"));
            assertThat(text(driver, "marks:count")).isEqualTo("5");
            assertThat(driver.getCurrentUrl()).contains("error=bookmark-empty-tenant").contains("failing=true");
        } finally {
            TestSql.execute("DELETE FROM projection_pending WHERE last_error LIKE 'bookmark-empty-tenant%'");
        }
    }

    @Test
    void aCutOrMadeUpPositionShowsTheFirstPageWithAMessageNotAServerError() throws Exception {
        failing(TENANT, 3, "bookmark-cut failure");
        try {
            String list = "marks.xhtml?projection=order-search&failing=true&tenant=" + TENANT + "&page=4&after=";
            ConsoleHttp http = new ConsoleHttp();
            http.logIn(ConsoleUsers.VIEWER, ConsoleUsers.VIEWER_PASSWORD);
            for (String position : List.of("garbage!", "MXxub3Q", "A".repeat(5000))) {
                HttpResponse<String> page = http.get(list + position);
                assertThat(page.statusCode()).as(position).isEqualTo(200);
                assertThat(page.body()).contains("could not be read").contains("f-001");
            }
            try (Browser browser = new Browser()) {
                WebDriver driver = browser.driver();
                browser.logIn(list + "MXxub3Q", ConsoleUsers.VIEWER, ConsoleUsers.VIEWER_PASSWORD);
                assertThat(text(driver, "marks:messages")).contains("The page position of this link could not be read");
                assertThat(text(driver, "marks:page")).isEqualTo("1");
                assertThat(ids(driver)).containsExactly("f-001", "f-002", "f-003");
            }
        } finally {
            TestSql.execute("DELETE FROM projection_pending WHERE tenant_id = 'bookmarks'");
        }
    }

    @Test
    void theAuditLogIsFilteredByUrlPagesOlderByLinkAndNamesABadTime() throws Exception {
        TestSql.execute("""
                INSERT INTO projection_audit (at, user_name, action, projection, tenant_id, entity_id, detail)
                SELECT TIMESTAMPTZ '2031-03-01 00:00:00+00' + i * INTERVAL '1 hour', 'bookmark-alice',
                       CASE WHEN i % 2 = 0 THEN 'retry' ELSE 'pause' END, 'order-search', '', 'a-' || i, NULL
                  FROM generate_series(1, 60) AS i""");
        TestSql.execute("""
                INSERT INTO projection_audit (at, user_name, action, projection, tenant_id, entity_id, detail)
                VALUES (TIMESTAMPTZ '2031-03-01 05:00:00+00', 'bookmark-bob', 'retry', 'order-search', '', 'b-1', NULL)""");
        try (Browser browser = new Browser()) {
            WebDriver driver = browser.driver();
            browser.logIn("audit.xhtml?user=bookmark-alice", ConsoleUsers.VIEWER, ConsoleUsers.VIEWER_PASSWORD);
            assertThat(column(driver, 2)).hasSize(50).containsOnly("bookmark-alice");
            assertThat(column(driver, 6).get(0)).isEqualTo("a-60");
            driver.findElement(By.id("audit:older")).click();
            Browser.waitUpTo(driver, Duration.ofSeconds(15)).ignoring(WebDriverException.class)
                    .until(d -> d.getCurrentUrl().contains("before="));
            assertThat(column(driver, 6)).hasSize(10).startsWith("a-10").endsWith("a-1");
            assertThat(driver.getCurrentUrl()).contains("user=bookmark-alice");

            // from inclusive, to exclusive, in UTC; action and user together
            driver.get(Browser.CONSOLE + "audit.xhtml?user=bookmark-alice&action=retry&from=2031-03-01T04:00:00Z"
                    + "&to=2031-03-01T09:00");
            assertThat(column(driver, 6)).containsExactly("a-8", "a-6", "a-4");
            assertThat(driver.findElement(By.id("audit-from")).getAttribute("value")).isEqualTo("2031-03-01T04:00:00Z");
            driver.get(Browser.CONSOLE + "audit.xhtml?from=2031-03-01&to=2031-03-01&user=bookmark-bob");
            assertThat(column(driver, 6)).as("a to date includes its day").containsExactly("b-1");

            driver.get(Browser.CONSOLE + "audit.xhtml?user=bookmark-alice&from=last+tuesday");
            assertThat(text(driver, "audit:messages")).contains("from: “last tuesday” is neither a date");
            assertThat(driver.findElements(By.cssSelector("#audit\\:entries tbody tr"))).as("no unfiltered rows").isEmpty();
        } finally {
            TestSql.execute("DELETE FROM projection_audit WHERE user_name LIKE 'bookmark-%'");
        }
    }

    @Test
    void theCsvExportIsQuotedNeutralisesFormulasAndIsForConsoleUsersOnly() throws Exception {
        TestSql.execute("""
                INSERT INTO projection_audit (at, user_name, action, projection, tenant_id, entity_id, detail)
                VALUES (TIMESTAMPTZ '2031-04-01 10:00:00+00', 'bookmark-csv', 'retry', 'order-search', 'acme', '42',
                        'a detail, with "quotes" and ünïcödé'),
                       (TIMESTAMPTZ '2031-04-01 11:00:00+00', 'bookmark-csv', 'rebuild', 'order-search', '', '=1+2',
                        '=HYPERLINK("http://evil.example","click")')""");
        try {
            ConsoleHttp viewer = new ConsoleHttp();
            viewer.logIn(ConsoleUsers.VIEWER, ConsoleUsers.VIEWER_PASSWORD);
            HttpResponse<String> csv = viewer.get("audit.csv?user=bookmark-csv");
            assertThat(csv.statusCode()).isEqualTo(200);
            assertThat(csv.headers().firstValue("Content-Type").orElse("")).startsWith("text/csv")
                    .containsIgnoringCase("charset=UTF-8");
            assertThat(csv.headers().firstValue("Content-Disposition").orElse("")).contains("attachment");
            String[] lines = csv.body().split("\r\n");
            assertThat(lines).hasSize(3);
            assertThat(lines[0]).isEqualTo("id,at,user,action,projection,tenant,entity_id,detail");
            assertThat(lines[1]).matches("\\d+,2031-04-01T11:00:00Z,bookmark-csv,rebuild,order-search,,'=1\\+2,"
                    + "\"'=HYPERLINK\\(\"\"http://evil.example\"\",\"\"click\"\"\\)\"");
            assertThat(lines[2]).matches("\\d+,2031-04-01T10:00:00Z,bookmark-csv,retry,order-search,acme,42,"
                    + "\"a detail, with \"\"quotes\"\" and ünïcödé\"");

            HttpResponse<String> bad = viewer.get("audit.csv?to=never");
            assertThat(bad.statusCode()).isEqualTo(400);
            assertThat(bad.body()).contains("to: “never” is neither a date");

            HttpResponse<String> anonymous = new ConsoleHttp().get("audit.csv?user=bookmark-csv");
            assertThat(anonymous.body()).as("the login, not the log").contains("j_security_check")
                    .doesNotContain("bookmark-csv");
        } finally {
            TestSql.execute("DELETE FROM projection_audit WHERE user_name LIKE 'bookmark-%'");
        }
    }

    /** {@code count} failing marks f-001… of order-search in {@code tenant}, backing off, in id order of due time. */
    private static void failing(String tenant, int count, String error) {
        TestSql.execute("""
                INSERT INTO projection_pending (projection, tenant_id, entity_id, generation, available_at,
                    first_marked_at, attempts, last_failed_at, last_error)
                SELECT 'order-search', '%s', 'f-' || lpad(i::text, 3, '0'), 'g',
                       now() + INTERVAL '1 hour' + i * INTERVAL '1 second', now(), 1, now(), '%s ' || i
                  FROM generate_series(1, %d) AS i""".formatted(tenant, error, count));
    }

    private static void waitForPage(WebDriver driver, int page) {
        String expected = String.valueOf(page);
        Browser.waitUpTo(driver, Duration.ofSeconds(15)).ignoring(WebDriverException.class)
                .until(d -> expected.equals(d.findElement(By.id("marks:page")).getText()));
    }

    private static String text(WebDriver driver, String id) {
        return driver.findElement(By.id(id)).getText();
    }

    private static List<String> ids(WebDriver driver) {
        return driver.findElements(By.cssSelector("#marks\\:rows .mark-id")).stream().map(WebElement::getText).toList();
    }

    private static List<String> column(WebDriver driver, int column) {
        return driver.findElements(By.cssSelector("#audit\\:entries tbody tr td:nth-child(" + column + ")")).stream()
                .map(WebElement::getText).toList();
    }
}
