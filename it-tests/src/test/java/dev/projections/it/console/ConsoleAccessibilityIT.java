package dev.projections.it.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.it.support.Browser;
import dev.projections.it.support.ConsoleUsers;
import dev.projections.it.support.Deployments;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebDriverException;

/**
 * Every page of the console passes axe-core (pinned, from the npm registry at build time) with no serious or critical
 * violation, in light and in dark mode: contrast, labels, names, language, landmarks.
 */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class ConsoleAccessibilityIT {

    private static final Path AXE = Path.of("target", "axe", "node_modules", "axe-core", "axe.min.js");

    @Deployment(testable = false)
    static EnterpriseArchive deployment() {
        return Deployments.ear(Map.of());
    }

    @Test
    void everyPageHasNoSeriousOrCriticalAxeViolationInLightAndDarkMode() throws Exception {
        assertThat(AXE).as("axe-core, installed by the build (npm)").exists();
        String axe = Files.readString(AXE);
        List<String> violations = new ArrayList<>();
        for (boolean dark : new boolean[] {false, true}) {
            try (Browser browser = new Browser(dark)) {
                WebDriver driver = browser.driver();
                driver.get(Browser.CONSOLE);
                violations.addAll(check(driver, axe, "login" + (dark ? " (dark)" : "")));
                browser.logIn("", ConsoleUsers.ADMIN, ConsoleUsers.ADMIN_PASSWORD);
                // every page in light mode; in dark mode those with the most kinds of element (the colours are shared)
                List<String> pages = dark ? List.of("index.xhtml", "marks.xhtml?projection=order-search&failing=true",
                        "rebuilds.xhtml", "projection.xhtml?name=order-search") : List.of("index.xhtml", "marks.xhtml?projection=order-search",
                        "marks.xhtml?projection=order-search&failing=true", "tenants.xhtml", "rebuilds.xhtml",
                        "marks.xhtml?projection=order-search&failing=true&tenant=&after=cut", "audit.xhtml",
                        "audit.xhtml?user=admin&from=2020-01-01", "audit.xhtml?from=never", "find.xhtml?id=1",
                        "rebuild.xhtml?run=no-such-run", "instances.xhtml",
                        "projection.xhtml?name=order-search", "projection.xhtml?name=order-search&window=day",
                        "projection.xhtml?name=no-such-projection");
                for (String page : pages) {
                    driver.get(Browser.CONSOLE + page);
                    Browser.waitUpTo(driver, Duration.ofSeconds(15)).ignoring(WebDriverException.class)
                            .until(d -> !d.findElements(By.tagName("main")).isEmpty());
                    violations.addAll(check(driver, axe, page + (dark ? " (dark)" : "")));
                    if (page.equals("index.xhtml")) {
                        browser.screenshot(dark ? "console-overview-dark" : "console-overview-light");
                    }
                }
            }
        }
        assertThat(violations).isEmpty();
    }

    /** The serious and critical violations axe finds on the page shown, each with up to five of its elements. */
    @SuppressWarnings("unchecked")
    private static List<String> check(WebDriver driver, String axe, String page) {
        JavascriptExecutor js = (JavascriptExecutor) driver;
        driver.manage().timeouts().scriptTimeout(Duration.ofSeconds(60));
        js.executeScript(axe);
        Object found = js.executeAsyncScript("""
                var done = arguments[arguments.length - 1];
                axe.run(document, {resultTypes: ['violations'], runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']}}).then(function (r) {
                  done(r.violations.filter(function (v) { return v.impact === 'serious' || v.impact === 'critical'; })
                    .map(function (v) {
                      return v.id + ' (' + v.impact + '): ' + v.help + ' at ' + v.nodes.slice(0, 5).map(function (n) {
                        return n.target.join(' ') + (n.failureSummary ? ' [' + n.failureSummary.replace(/\\s+/g, ' ') + ']' : '');
                      }).join('; ');
                    }));
                }).catch(function (e) { done(['axe failed: ' + e]); });
                """);
        return ((List<Object>) found).stream().map(v -> page + ": " + v).toList();
    }
}
