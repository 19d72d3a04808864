package dev.projections.it.install;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.it.support.Await;
import dev.projections.it.support.Browser;
import dev.projections.it.support.OtlpReceiver;
import dev.projections.testsupport.TestDatabase;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Properties;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebDriverException;

/**
 * The library as a user installs it (docs/install.md): an unmodified WildFly 39 distribution, configured only by
 * docs/install/wildfly.cli (PostgreSQL driver as a deployment, a datasource, a filesystem realm) and
 * docs/install/operator.cli (two named operators), and an application of its own — src/it/library-app, built by
 * the maven-invoker-plugin against this build's artifacts through the BOM, not the demo — deployed with
 * {@code jboss-cli deploy}. No custom module, no thread-pool setting, nothing from wildfly-config. Beside it,
 * src/it/notes-war: a single WAR with its one starter, on the server's own ExampleDS (H2) — an engine of its own.
 * With docs/install/microprofile-health.cli and docs/install/opentelemetry.cli the optional modules run too, the
 * latter exporting to a collector in the test ({@link OtlpReceiver}).
 */
class StockWildFlyIT {

    /** Whether the distribution's configuration runs a micrometer subsystem (WildFly Preview's does). */
    private static final boolean SERVER_METER_REGISTRY = Boolean.getBoolean("stock.server.meter-registry");
    /** A database of its own, also per pass: CI's Jakarta EE 11 pass runs beside the main one (ports 1000 further on). */
    private static final String DATABASE = "projections_stock"
            + (StockServer.PORT_OFFSET == 300 ? "" : "_" + StockServer.PORT_OFFSET);
    private static final Path DOCS = Path.of("..", "docs", "install");

    private static StockServer server;
    private static ServerHttp web;
    private static OtlpReceiver collector;
    private static String databaseUrl;

    @BeforeAll
    static void installAsTheDocsSay() throws Exception {
        TestDatabase db = TestDatabase.get();
        databaseUrl = StockServer.freshDatabase(db, DATABASE);
        server = new StockServer(Path.of(System.getProperty("stock.wildfly.home", "target/stock/wildfly")),
                Path.of("target", "stock-base")).start();
        web = new ServerHttp(server);

        Properties install = new Properties();
        install.setProperty("driver.jar", Path.of(System.getProperty("stock.driver", "target/stock/postgresql.jar"))
                .toAbsolutePath().toString());
        install.setProperty("datasource.name", "ProjectionDS");
        install.setProperty("db.url", databaseUrl);
        install.setProperty("db.user", db.user());
        // jboss-cli cannot parse an empty --password= (docs/pitfalls.md #47); trust authentication ignores it
        install.setProperty("db.password", db.password().isEmpty() ? "unused" : db.password());
        server.cli(DOCS.resolve("wildfly.cli"), install);
        server.cli(DOCS.resolve("operator.cli"), operator("alice", "alice-Secret-1", "projection-admin"));
        server.cli(DOCS.resolve("operator.cli"), operator("bob", "bob-Secret-1", "projection-viewer"));
        server.cli(DOCS.resolve("microprofile-health.cli"), new Properties());
        collector = new OtlpReceiver();
        Properties otel = new Properties();
        otel.setProperty("otlp.endpoint", collector.endpoint());
        otel.setProperty("otlp.protocol", "http/protobuf");
        server.cli(DOCS.resolve("opentelemetry.cli"), otel);
        if (SERVER_METER_REGISTRY) {
            // the server's micrometer subsystem (WildFly Preview's default) records into nothing until it has a
            // registry: one that serves Prometheus text on the management interface (docs/guide/install-wildfly.md "Metrics")
            server.cliCommand("/subsystem=micrometer/registry=prometheus:add(context=/prometheus,security-enabled=false)");
            server.cliCommand("reload");
        }

        Path ear = Path.of(System.getProperty("library.ear", "target/it/library-app/library-ear/target/library.ear"));
        server.cliCommand("deploy " + ear.toAbsolutePath());
        Path war = Path.of(System.getProperty("notes.war", "target/it/notes-war/target/notes.war"));
        server.cliCommand("deploy " + war.toAbsolutePath());
    }

    @AfterAll
    static void stop() throws Exception {
        if (server != null) {
            server.close();
        }
        if (collector != null) {
            collector.close();
        }
    }

    @Test
    void aChangeCommittedByTheApplicationReachesItsReadModel() throws Exception {
        String id = web.send("POST", "/library/api/books", "title=Dune&author=Frank+Herbert").body();
        // the application's test waits through the test support (projection.test-support=true), not by polling
        web.assertIdle("/projections/test/idle?projection=book-titles&timeout=30s");
        assertThat(titleLine(id)).isEqualTo("Dune — Frank Herbert");

        assertThat(web.send("PUT", "/library/api/books/" + id, "title=Dune+Messiah").statusCode()).isEqualTo(200);
        web.assertIdle("/projections/test/idle?timeout=30s");
        assertThat(titleLine(id)).isEqualTo("Dune Messiah — Frank Herbert");
        assertThat(count("SELECT COUNT(*) FROM projection_pending WHERE entity_id = ?", id)).isZero();

        HttpResponse<String> unknown = web.post("/projections/test/idle?projection=no-such");
        assertThat(unknown.statusCode()).isEqualTo(400);
        assertThat(unknown.body()).contains("no-such").contains("book-titles");
        HttpResponse<String> refresh = web.post("/projections/test/refresh?projection=book-titles");
        assertThat(refresh.statusCode()).as(refresh.body()).isEqualTo(200);
        assertThat(refresh.body()).isEqualTo("{\"madeDue\":0}");
    }

    @Test
    void aSingleWarApplicationWithItsOneStarterRefreshesItsReadModel() throws Exception {
        String id = web.send("POST", "/notes/api/notes", "text=buy+milk").body();
        web.assertIdle("/notes/projections/test/idle?projection=note-lines&timeout=30s");
        assertThat(web.body("/notes/api/notes/" + id + "/line")).isEqualTo("#" + id + ": buy milk");

        HttpResponse<String> health = web.get("/notes/projections/health");
        assertThat(health.statusCode()).as(health.body()).isEqualTo(200);
        assertThat(health.body()).contains("\"status\":\"UP\"");
        Await.until("the WAR's refresh in its own metrics", () -> web.get("/notes/projections/metrics").body()
                .contains("projection_refresh_seconds_count{outcome=\"success\",projection=\"note-lines\""));
    }

    @Test
    void theWarsOwnTestWaitsOnItsReadModelThroughProjectionsTest() throws Exception {
        ApplicationTests.pass(Path.of("target", "it", "notes-war", "target", "test-classes"),
                "org.example.notes.NoteLinesIT", server.url("/notes/projections"));
    }

    @Test
    void healthAndMetricsAreServed() throws Exception {
        HttpResponse<String> health = web.get("/projections/health");
        assertThat(health.statusCode()).isEqualTo(200);
        assertThat(health.body()).contains("\"status\":\"UP\"");
        web.send("POST", "/library/api/books", "title=Emma&author=Jane+Austen");
        java.util.regex.Pattern refreshed = java.util.regex.Pattern.compile(
                "projection_refresh_seconds_count\\{[^}]*projection=\"book-titles\"[^}]*} [1-9]");
        if (SERVER_METER_REGISTRY) {
            // the micrometer subsystem's MeterRegistry bean is the application's, so the engine's meters go there, not
            // to its bundled registry: the endpoint says where, and the server's Prometheus registry has them
            assertThat(web.get("/projections/metrics").body()).as("the server's MeterRegistry")
                    .startsWith("# the projection meters go to the application's MeterRegistry (");
            Await.until("a refresh in the server's registry",
                    () -> refreshed.matcher(web.managementBody("/prometheus")).find());
            return;
        }
        Await.until("a refresh in the metrics", () -> refreshed.matcher(web.get("/projections/metrics").body()).find());
    }

    @Test
    void theRefreshOfABookIsASpanLinkedToTheRequestThatChangedIt() {
        new ObservedLibrary(server, web).refreshIsASpanLinkedToTheRequest(collector);
    }

    @Test
    void theReadinessCheckOfMicroProfileHealthReportsTheEngine() {
        new ObservedLibrary(server, web).readinessReportsTheEngine();
    }

    @Test
    void anOperatorOfTheFilesystemRealmActsUnderHerOwnName() throws Exception {
        long audited = count("SELECT COALESCE(MAX(id), 0) FROM projection_audit");
        try (Browser browser = new Browser()) {
            WebDriver driver = browser.driver();
            browser.logInAt(server.url("/projections/"), "alice", "alice-Secret-1");
            rowButton(driver, "Pause").click();
            Browser.waitUpTo(driver, Duration.ofSeconds(15)).ignoring(WebDriverException.class)
                    .until(d -> !d.findElements(By.cssSelector("input[value='Resume']")).isEmpty());
            rowButton(driver, "Resume").click();
            Browser.waitUpTo(driver, Duration.ofSeconds(15)).ignoring(WebDriverException.class)
                    .until(d -> !d.findElements(By.cssSelector("input[value='Pause']")).isEmpty());
        }
        assertThat(count("SELECT COUNT(*) FROM projection_audit WHERE projection = 'book-titles' AND user_name = 'alice'"
                + " AND action IN ('pause', 'resume') AND id > ?", audited)).isEqualTo(2);
    }

    @Test
    void aViewerOfTheFilesystemRealmSeesNoActions() throws Exception {
        try (Browser browser = new Browser()) {
            browser.logInAt(server.url("/projections/"), "bob", "bob-Secret-1");
            assertThat(browser.driver().findElement(By.id("user")).getText()).contains("bob");
            assertThat(browser.driver().getPageSource()).contains("book-titles");
            assertThat(browser.buttons()).doesNotContain("Pause", "Resume", "Rebuild…");
        }
    }

    private static org.openqa.selenium.WebElement rowButton(WebDriver driver, String label) {
        return Browser.waitUpTo(driver, Duration.ofSeconds(15)).ignoring(WebDriverException.class)
                .until(d -> d.findElements(By.cssSelector("#overview\\:projections tbody tr")).stream()
                        .filter(row -> row.findElement(By.cssSelector("td:nth-child(1)")).getText().equals("book-titles"))
                        .findFirst().orElseThrow().findElement(By.cssSelector("input[value='" + label + "']")));
    }

    private static Properties operator(String name, String password, String role) {
        Properties operator = new Properties();
        operator.setProperty("operator.name", name);
        operator.setProperty("operator.password", password);
        operator.setProperty("operator.role", role);
        return operator;
    }

    private static long count(String sql, Object... parameters) throws SQLException {
        TestDatabase db = TestDatabase.get();
        try (Connection connection = DriverManager.getConnection(databaseUrl, db.user(), db.password());
             PreparedStatement statement = connection.prepareStatement(sql)) {
            for (int i = 0; i < parameters.length; i++) {
                statement.setObject(i + 1, parameters[i]);
            }
            try (ResultSet rs = statement.executeQuery()) {
                return rs.next() ? rs.getLong(1) : 0;
            }
        }
    }

    private String titleLine(String id) {
        return web.body("/library/api/books/" + id + "/title");
    }
}
