package dev.projections.it.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.it.support.Browser;
import dev.projections.it.support.Deployments;
import dev.projections.it.support.PendingRows;
import dev.projections.testsupport.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.Map;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.openqa.selenium.By;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.support.ui.WebDriverWait;

/** The console in a real headless Chromium: the overview shows the table's counts and its button reloads them. */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class ConsolePageIT {

    @Deployment(testable = false)
    static EnterpriseArchive deployment() {
        // nothing refreshes the mark this test inserts, so the page can be compared with the table
        return Deployments.ear(Map.of("projection.auto-refresh", "false"));
    }

    @Test
    void theOverviewUpdatesItselfWithTheTablesCountsAndShowsAnErrorAsTextThatRunsNothing() throws Exception {
        try (Browser browser = new Browser()) {
            WebDriver driver = browser.driver();
            driver.get("http://127.0.0.1:8080/projections/");
            long before = pendingInTable("customer-stats");
            assertThat(pendingOf(driver, "customer-stats")).isEqualTo(String.valueOf(before));
            browser.screenshot("overview-before");

            insertMark("customer-stats", "424242");
            failWith("customer-stats", "424243", "<script>document.title='pwned'</script>");
            String after = String.valueOf(before + 2);
            new WebDriverWait(driver, Duration.ofSeconds(20))
                    .ignoring(StaleElementReferenceException.class) // the form is re-rendered by Ajax
                    .until(d -> after.equals(pendingOf(d, "customer-stats")));
            assertThat(cellOf(driver, "customer-stats", 4)).as("failing").isEqualTo("1");
            assertThat(cellOf(driver, "customer-stats", 8)).contains("<script>document.title='pwned'</script>");
            assertThat(driver.getTitle()).as("the error ran nothing").isEqualTo("Projections");

            driver.findElement(By.id("overview:refresh")).click();
            new WebDriverWait(driver, Duration.ofSeconds(15)).ignoring(StaleElementReferenceException.class)
                    .until(d -> after.equals(pendingOf(d, "customer-stats")));
            browser.screenshot("overview-after");
        }
    }

    private static String cellOf(WebDriver driver, String projection, int column) {
        return driver.findElements(By.cssSelector("#overview\\:projections tbody tr")).stream()
                .filter(row -> row.findElement(By.cssSelector("td:nth-child(1)")).getText().equals(projection))
                .map(row -> row.findElement(By.cssSelector("td:nth-child(" + column + ")")).getAttribute("textContent").trim())
                .findFirst().orElse("missing");
    }

    private static void failWith(String projection, String id, String error) throws Exception {
        try (Connection connection = TestDatabase.get().connect()) {
            PendingRows.insertDue(connection, projection, id);
            try (PreparedStatement update = connection.prepareStatement(
                    "UPDATE projection_pending SET attempts = 1, last_error = ?, last_failed_at = available_at,"
                            + " available_at = available_at + INTERVAL '1 hour' WHERE projection = ? AND entity_id = ?")) {
                update.setString(1, error);
                update.setString(2, projection);
                update.setString(3, id);
                update.executeUpdate();
            }
        }
    }

    private static String pendingOf(WebDriver driver, String projection) {
        return driver.findElements(By.cssSelector("#overview\\:projections tbody tr")).stream()
                .filter(row -> row.findElement(By.cssSelector("td:nth-child(1)")).getText().equals(projection))
                .map(row -> row.findElement(By.cssSelector("td:nth-child(2)")).getText())
                .findFirst().orElse("missing");
    }

    private static long pendingInTable(String projection) throws Exception {
        try (Connection connection = TestDatabase.get().connect();
             PreparedStatement count = connection.prepareStatement(
                     "SELECT COUNT(*) FROM projection_pending WHERE projection = ?")) {
            count.setString(1, projection);
            try (var rows = count.executeQuery()) {
                rows.next();
                return rows.getLong(1);
            }
        }
    }

    private static void insertMark(String projection, String id) throws Exception {
        try (Connection connection = TestDatabase.get().connect()) {
            PendingRows.insertDue(connection, projection, id);
        }
    }
}
