package dev.projections.it.install;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.testsupport.TestDatabase;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The library as one file (docs/install.md "A bootable JAR"): the same {@code wildfly-maven-plugin:package} run that
 * lays out {@link GalleonWildFlyIT}'s server from the layers {@code projections} and {@code projections-postgresql}
 * also packs it, library-app deployed, into a bootable JAR; started with {@code java -jar} and the database's
 * coordinates as system properties, its changes reach the read model.
 */
class BootableJarIT {

    private static final String DATABASE = "projections_bootable"
            + (StockServer.PORT_OFFSET == 300 ? "" : "_" + StockServer.PORT_OFFSET);

    private static StockServer server;
    private static ServerHttp web;

    @BeforeAll
    static void startedWithJavaJar() throws Exception {
        TestDatabase db = TestDatabase.get();
        server = StockServer.bootableJar(Path.of(System.getProperty("bootable.jar", "target/library-bootable.jar")),
                        Path.of("target", "bootable-base"), "/projections/health")
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
        String id = web.send("POST", "/library/api/books", "title=Emma&author=Jane+Austen").body();
        web.assertIdle("/projections/test/idle?projection=book-titles&timeout=30s");
        assertThat(web.body("/library/api/books/" + id + "/title")).isEqualTo("Emma — Jane Austen");

        web.send("PUT", "/library/api/books/" + id, "title=Persuasion");
        web.assertIdle("/projections/test/idle?timeout=30s");
        assertThat(web.body("/library/api/books/" + id + "/title")).isEqualTo("Persuasion — Jane Austen");

        HttpResponse<String> health = web.get("/projections/health");
        assertThat(health.statusCode()).as(health.body()).isEqualTo(200);
        assertThat(health.body()).contains("\"status\":\"UP\"");
    }
}
