package dev.projections.it.singlewar;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.it.support.Browser;
import dev.projections.it.support.ConsoleUsers;
import dev.projections.it.support.OpenApiContract;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.asset.StringAsset;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebDriverException;

/**
 * The console, health and metrics in a single-WAR application, from the two web-fragment jars in its WEB-INF/lib
 * (projection-console, projection-endpoints): all under /projections/ of the application's context, the
 * application's own pages left alone.
 */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class SingleWarConsoleIT {

    private static final String NAME = "single-war-console";
    private static final String APP = "http://127.0.0.1:8080/" + NAME;

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).followRedirects(HttpClient.Redirect.NEVER).build();

    @Deployment(testable = false)
    static WebArchive deployment() {
        return SingleWarShop.withConsole(SingleWarShop.war(NAME))
                .add(new StringAsset("<!DOCTYPE html><title>Gadget shop</title><p>the shop's own page</p>"), "index.html");
    }

    @Test
    void healthAndMetricsAnswerWithoutALoginUnderTheApplicationsContext() throws Exception {
        HttpResponse<String> health = get("/projections/health");
        assertThat(health.statusCode()).as(health.body()).isEqualTo(200);
        assertThat(health.body()).contains("\"status\":\"UP\"");
        HttpResponse<String> metrics = get("/projections/metrics");
        assertThat(metrics.statusCode()).isEqualTo(200);
        assertThat(metrics.body()).contains("projection_pending{projection=\"" + GadgetNames.NAME + "\"");
    }

    @Test
    void theManagementApiAnswersUnderTheApplicationsContextWithBasicCredentialsOfItsRealm() throws Exception {
        HttpResponse<String> anonymous = get("/projections/api/v1/projections");
        OpenApiContract.ofSourceTree().assertAnswer("GET", anonymous.uri(), anonymous);
        assertThat(anonymous.statusCode()).as("401, not the login form").isEqualTo(401);
        assertThat(anonymous.headers().firstValue("WWW-Authenticate")).isPresent();
        String basic = "Basic " + java.util.Base64.getEncoder().encodeToString((ConsoleUsers.VIEWER + ":"
                + ConsoleUsers.VIEWER_PASSWORD).getBytes(java.nio.charset.StandardCharsets.UTF_8));
        HttpResponse<String> list = OpenApiContract.ofSourceTree().exchange(http, HttpRequest.newBuilder(
                URI.create(APP + "/projections/api/v1/projections")).header("Authorization", basic).build(), null, true);
        assertThat(list.statusCode()).as(list.body()).isEqualTo(200);
        assertThat(list.body()).contains("\"name\":\"" + GadgetNames.NAME + "\"")
                .contains("\"self\":\"/" + NAME + "/projections/api/v1/projections/" + GadgetNames.NAME + "\"");
        // the container's login may open a session for the request; the API drops it before answering
        assertThat(list.headers().allValues("Set-Cookie")).as("no session kept for a Basic request")
                .allSatisfy(cookie -> assertThat(cookie).contains("Expires=Thu, 01-Jan-1970"));
    }

    @Test
    void theApplicationsOwnPagesNeedNoConsoleLogin() throws Exception {
        HttpResponse<String> page = get("/");
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.body()).contains("the shop's own page");
        assertThat(page.headers().firstValue("Content-Security-Policy")).as("the console's headers stay on its pages")
                .isEmpty();
    }

    @Test
    void theConsolesPagesNeedALoginAndItsHomeIsTheOverview() throws Exception {
        HttpResponse<String> page = get("/projections/find.xhtml?id=42");
        assertThat(page.body()).as("the login form, not the page").contains("j_security_check")
                .doesNotContain("Marks of id");
        HttpResponse<String> home = get("/projections/");
        assertThat(home.body()).contains("j_security_check");
        HttpResponse<String> export = get("/projections/audit.csv");
        assertThat(export.body()).as("the audit export is behind the login too").contains("j_security_check")
                .doesNotContain("id,at,user");
    }

    @Test
    void anOperatorLogsInToTheConsoleUnderProjectionsAndFindsItsPagesAndProjection() throws Exception {
        assertThat(get("/projections/index.xhtml").headers().firstValue("Content-Security-Policy"))
                .as("the console's headers on its login").isPresent();
        try (Browser browser = new Browser()) {
            WebDriver driver = browser.driver();
            browser.logInAt(APP + "/projections/", ConsoleUsers.ADMIN, ConsoleUsers.ADMIN_PASSWORD);
            assertThat(driver.findElement(By.id("user")).getText()).isEqualTo("admin");
            assertThat(driver.getCurrentUrl()).as("home is the overview").isEqualTo(APP + "/projections/index.xhtml");
            assertThat(driver.findElements(By.cssSelector("#overview\\:projections tbody td:first-child")).stream()
                    .map(cell -> cell.getText()).toList()).contains(GadgetNames.NAME);
            assertThat(browser.buttons()).contains("Pause");
            browser.screenshot("single-war-console");

            driver.findElement(By.id("nav-marks")).click();
            Browser.waitUpTo(driver, Duration.ofSeconds(15)).ignoring(WebDriverException.class)
                    .until(d -> d.getCurrentUrl().startsWith(APP + "/projections/marks.xhtml"));
            driver.findElement(By.id("find-id")).sendKeys("42");
            driver.findElement(By.id("find-go")).click();
            Browser.waitUpTo(driver, Duration.ofSeconds(15)).ignoring(WebDriverException.class)
                    .until(d -> d.getCurrentUrl().equals(APP + "/projections/find.xhtml?id=42"));
            assertThat(driver.findElement(By.id("none")).getText()).contains("No mark of this id");

            // the audit export of the web fragment, fetched with the browser's session
            Object csv = ((org.openqa.selenium.JavascriptExecutor) driver).executeAsyncScript("""
                    var done = arguments[arguments.length - 1];
                    fetch('audit.csv?user=admin').then(function (r) { return r.text().then(function (t) {
                      done(r.status + ' ' + r.headers.get('Content-Type') + '\\n' + t); }); });""");
            // (the script's string reaches the test with its CRLFs as LFs; ConsoleBookmarksIT reads the bytes)
            assertThat(String.valueOf(csv)).startsWith("200 text/csv")
                    .containsPattern("\nid,at,user,action,projection,tenant,entity_id,detail\r?\n");
        }
    }

    private HttpResponse<String> get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(APP + path)).build(), HttpResponse.BodyHandlers.ofString());
    }
}
