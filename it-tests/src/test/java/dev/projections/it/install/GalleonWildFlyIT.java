package dev.projections.it.install;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.it.support.Browser;
import dev.projections.testsupport.TestDatabase;
import java.net.http.HttpResponse;
import java.nio.file.Path;
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
 * its read model, and the console answers, to an operator added as operators are at run time.
 */
class GalleonWildFlyIT {

    private static final String DATABASE = "projections_galleon"
            + (StockServer.PORT_OFFSET == 300 ? "" : "_" + StockServer.PORT_OFFSET);

    private static StockServer server;
    private static ServerHttp web;

    @BeforeAll
    static void provisionedByTheBuildStartedWithTheDatabase() throws Exception {
        TestDatabase db = TestDatabase.get();
        server = new StockServer(Path.of(System.getProperty("galleon.wildfly.home", "target/galleon-server")),
                Path.of("target", "galleon-base"), "/projections/health")
                .onFreshDatabase(db, DATABASE)
                .start();
        web = new ServerHttp(server);
    }

    @AfterAll
    static void stop() throws Exception {
        if (server != null) {
            server.close();
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
