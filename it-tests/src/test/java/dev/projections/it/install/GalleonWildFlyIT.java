package dev.projections.it.install;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.it.support.Await;
import dev.projections.it.support.Browser;
import dev.projections.it.support.OtlpReceiver;
import dev.projections.testsupport.TestDatabase;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Properties;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;

/**
 * The library as a WildFly team provisions it (docs/install.md "Provision with the layer"): the build's
 * {@code wildfly-maven-plugin:package} lays out a server from WildFly's feature pack and
 * {@code projections-galleon-pack} with the layers {@code projections} and {@code projections-postgresql}, and deploys
 * src/it/library-app's EAR into it — no {@code jboss-cli} step configures anything. The server starts with the
 * database's coordinates as system properties (the environment would do as well), the application's changes reach
 * its read model, and the console answers, to an operator added as operators are at run time. With the layers
 * {@code projections-metrics}, {@code projections-tracing} and WildFly's {@code microprofile-health} too, the
 * engine's meters leave through WildFly's micrometer subsystem and its refresh spans through MicroProfile Telemetry,
 * both over OTLP to a collector in the test ({@link OtlpReceiver}), and its readiness check is MicroProfile Health's.
 */
class GalleonWildFlyIT {

    private static final String DATABASE = "projections_galleon"
            + (StockServer.PORT_OFFSET == 300 ? "" : "_" + StockServer.PORT_OFFSET);

    private static OtlpReceiver collector;
    private static StockServer server;
    private static ServerHttp web;

    @BeforeAll
    static void provisionedByTheBuildStartedWithTheDatabase() throws Exception {
        TestDatabase db = TestDatabase.get();
        collector = new OtlpReceiver();
        server = new StockServer(Path.of(System.getProperty("galleon.wildfly.home", "target/galleon-server")),
                Path.of("target", "galleon-base"), "/projections/health")
                .onFreshDatabase(db, DATABASE)
                .with("projection.metrics.otlp-endpoint", collector.endpoint() + "/v1/metrics")
                .with("projection.tracing.otlp-endpoint", collector.endpoint())
                // a push a second instead of a minute, so that the test waits for seconds
                .with("projection.metrics.step", "1")
                .start();
        web = new ServerHttp(server);
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
        web.assertIdle("/projections/test/idle?projection=book-titles&timeout=30s");
        assertThat(web.body("/library/api/books/" + id + "/title")).isEqualTo("Dune — Frank Herbert");

        HttpResponse<String> health = web.get("/projections/health");
        assertThat(health.statusCode()).as(health.body()).isEqualTo(200);
        assertThat(health.body()).contains("\"status\":\"UP\"");
    }

    @Test
    void theEnginesMetersReachACollectorThroughTheServersMicrometerSubsystem() throws Exception {
        String id = web.send("POST", "/library/api/books", "title=Kim&author=Rudyard+Kipling").body();
        web.assertIdle("/projections/test/idle?projection=book-titles&timeout=30s");
        assertThat(web.body("/library/api/books/" + id + "/title")).isEqualTo("Kim — Rudyard Kipling");

        // the subsystem's MeterRegistry is the application's CDI bean: the engine records there, not in its own
        assertThat(web.body("/projections/metrics"))
                .startsWith("# the projection meters go to the application's MeterRegistry (");
        try {
            // pushed every second: the refresh's lag counted, and the pending gauge as the table stands once idle
            Await.until("book-titles' lag counted and its pending gauge at 0, at the collector", Duration.ofSeconds(60),
                    () -> point("projection.lag", "book-titles") >= 1 && point("projection.pending", "book-titles") == 0);
        } catch (AssertionError notThere) {
            throw new AssertionError(notThere.getMessage() + "; received of the engine's: " + collector.points().stream()
                    .filter(point -> point.metric().startsWith("projection")).distinct().toList(), notThere);
        }
    }

    @Test
    void theRefreshOfABookIsASpanLinkedToTheRequestThatChangedIt() {
        new ObservedLibrary(server, web).refreshIsASpanLinkedToTheRequest(collector);
    }

    @Test
    void theReadinessCheckOfMicroProfileHealthReportsTheEngine() {
        new ObservedLibrary(server, web).readinessReportsTheEngine();
    }

    /** The last value received of {@code metric} for {@code projection}, -1 while none has arrived. */
    private static double point(String metric, String projection) {
        double last = -1;
        for (OtlpReceiver.Point point : collector.points()) {
            if (point.metric().equals(metric) && projection.equals(point.attributes().get("projection"))) {
                last = point.value();
            }
        }
        return last;
    }

    @Test
    void theApplicationsOwnTestWaitsOnItsReadModelThroughProjectionsTest() throws Exception {
        ApplicationTests.pass(Path.of("target", "it", "library-app", "library-web", "target", "test-classes"),
                "org.example.library.web.BookTitlesIT", server.url("/projections"));
    }

    @Test
    void theLayersRealmLetsAnOperatorIntoTheConsole() throws Exception {
        HttpResponse<String> anonymous = web.get("/projections/");
        assertThat(anonymous.body()).as("the form login of the layer's security domain").contains("j_security_check");

        Properties carol = new Properties();
        carol.setProperty("operator.name", "carol");
        carol.setProperty("operator.password", "carol-Secret-1");
        carol.setProperty("operator.role", "projection-viewer");
        server.cli(Path.of("..", "docs", "install", "operator.cli"), carol);
        try (Browser browser = new Browser()) {
            browser.logInAt(server.url("/projections/"), "carol", "carol-Secret-1");
            assertThat(browser.driver().findElement(By.id("user")).getText()).contains("carol");
            assertThat(browser.driver().getPageSource()).contains("book-titles");
        }
    }
}
