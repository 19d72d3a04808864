package dev.projections.payara;

import static dev.projections.payara.PayaraIT.property;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * GlassFish 7 (Jakarta EE 10) with its own JPA provider, EclipseLink: a domain of its own (portbase 15800: admin 15848,
 * HTTP 15880), the PostgreSQL driver and a pool behind {@code jdbc/__default}, the engine told that resource and to
 * sweep every 10 minutes, then the shelf application — its unit on EclipseLink with projection-eclipselink's session
 * customizer, no Hibernate ORM in the EAR — deployed with {@code asadmin deploy} and checked over HTTP and SQL. The
 * domain is stopped at the end whatever happened.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GlassFishIT {

    private final Path ear = Path.of(property("payara.ear", "../projection-ear-payara/target/projection-ear-payara.ear"));
    private final Path driver = Path.of(property("payara.driver", "target/driver/postgresql.jar"));
    private final Path eclipseLinkMarking = Path.of(property("payara.eclipselink-marking",
            "target/driver/projection-eclipselink.jar"));
    private final Database db = new Database(property("payara.db.host", "127.0.0.1"),
            Integer.parseInt(property("payara.db.port", "5432")), property("glassfish.db.name", "projection_glassfish"),
            property("payara.db.user", "postgres"), property("payara.db.password", ""));
    private final long started = System.nanoTime();
    private final Domain domain = new Domain(Path.of(property("glassfish.home", "target/glassfish/glassfish7")),
            Path.of(property("payara.domains", "target/domains")), "projections-glassfish",
            Integer.parseInt(property("glassfish.portbase", "15800")), this::log);

    private void log(String message) {
        System.out.printf("[glassfish %5.1fs] %s%n", (System.nanoTime() - started) / 1e9, message);
    }

    @BeforeAll
    void startDomainAndDeploy() throws Exception {
        db.recreate();
        log("database " + db.name() + " created afresh");
        domain.createAndStart();
        log("driver, pool, jdbc/__default, settings");
        domain.defaultDatasourceOn(driver, db);
        domain.asadmin().ok("create-system-properties",
                "projection.datasource=jdbc/__default:projection.sweep-interval=600s");
        Path shelfEar = ShelfApplication.ear(ear, eclipseLinkMarking);
        domain.asadmin().ok("deploy", "--name", "shelf", shelfEar.toString());
        log("deployed the shelf application");
    }

    @AfterAll
    void stopDomain() {
        domain.stop();
    }

    @Test
    void aUnitOnGlassFishsEclipseLinkIsMarkedInItsJtaTransactions() throws Exception {
        ShelfApplication.checkMarking(new Http(domain.httpPort()), db);
        log("EclipseLink unit: marked at commit, handed over, moves and explicit marks refreshed, rollback unmarked");
    }
}
