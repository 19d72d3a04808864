package dev.projections.payara;

import static dev.projections.payara.PayaraIT.property;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * GlassFish 7 (Jakarta EE 10) with its own JPA provider, EclipseLink: a domain of its own (portbase 15800: admin 15848,
 * HTTP 15880) set up as docs/guide/payara-glassfish.md "Running on Payara and GlassFish" says — the PostgreSQL driver, the database's
 * coordinates, {@code asadmin multimode --file docs/install/glassfish.asadmin}, two operators — then three
 * applications, one after the other, with no Hibernate in any: the shelf application (a unit on the server's default
 * datasource; moves, rollbacks and explicit marks in JTA transactions), it-tests' library application (an EAR with
 * projections-eclipselink-starter: read model, console, health) and its single WAR (projections-eclipselink-war-starter).
 * The domain is stopped at the end whatever happened.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class GlassFishIT {

    private static final String ADMIN_PASSWORD = "admin-secret-" + Long.toHexString(System.nanoTime());
    private static final String VIEWER_PASSWORD = "viewer-secret-" + Long.toHexString(System.nanoTime());

    private final Path ear = Path.of(property("payara.ear", "../projection-ear-payara/target/projection-ear-payara.ear"));
    private final Path driver = Path.of(property("payara.driver", "target/driver/postgresql.jar"));
    private final Path script = Path.of(property("glassfish.script", "../docs/install/glassfish.asadmin"));
    private final Path eclipseLinkMarking = Path.of(property("payara.eclipselink-marking",
            "target/driver/projection-eclipselink.jar"));
    private final Path libraryEar = Path.of(property("library.ear", "target/it/library-app/library-ear/target/library.ear"));
    private final Path notesWar = Path.of(property("notes.war", "target/it/notes-war/target/notes.war"));
    private final Database db = new Database(property("payara.db.host", "127.0.0.1"),
            Integer.parseInt(property("payara.db.port", "5432")), property("glassfish.db.name", "projection_glassfish"),
            property("payara.db.user", "postgres"), property("payara.db.password", ""));
    private final long started = System.nanoTime();
    private final Domain domain = new Domain(Path.of(property("glassfish.home", "target/glassfish/glassfish7")),
            Path.of(property("payara.domains", "target/domains")), "projections-glassfish",
            Integer.parseInt(property("glassfish.portbase", "15800")), this::log);
    private final Asadmin asadmin = domain.asadmin();

    private void log(String message) {
        System.out.printf("[glassfish %5.1fs] %s%n", (System.nanoTime() - started) / 1e9, message);
    }

    @BeforeAll
    void startDomainAndInstall() throws Exception {
        db.recreate();
        log("database " + db.name() + " created afresh");
        domain.createAndStart();
        log("driver, database coordinates, docs/install/glassfish.asadmin, operators");
        domain.installProjections(driver, script, db);
        domain.operator("alice", ADMIN_PASSWORD, "projection-admin");
        domain.operator("bob", VIEWER_PASSWORD, "projection-viewer");
    }

    @AfterAll
    void stopDomain() {
        domain.stop();
    }

    @Test
    @Order(1)
    void aUnitOnGlassFishsEclipseLinkIsMarkedInItsJtaTransactions() throws Exception {
        // the shelf unit names no datasource: the server's default, pointed at the script's pool and told the engine;
        // the sweep runs every 10 minutes, so a read model that arrives was handed over after the commit
        domain.defaultDatasourceOnTheProjectionsPool();
        asadmin.ok("create-system-properties", "projection.datasource=jdbc/__default:projection.sweep-interval=600s");
        asadmin.ok("deploy", "--name", "shelf", ShelfApplication.ear(ear, eclipseLinkMarking).toString());
        log("deployed the shelf application");
        ShelfApplication.checkMarking(new Http(domain.httpPort()), db);
        log("EclipseLink unit: marked at commit, handed over, moves and explicit marks refreshed, rollback unmarked");
        asadmin.ok("undeploy", "shelf");
        asadmin.ok("delete-system-property", "projection.datasource");
        asadmin.ok("delete-system-property", "projection.sweep-interval");
    }

    @Test
    @Order(2)
    void theLibraryApplicationBuiltWithTheEclipseLinkStarterRefreshesAndItsConsoleAnswers() throws Exception {
        OwnApplications.requireEclipseLinkOnly(libraryEar);
        asadmin.ok("deploy", "--name", "library", libraryEar.toAbsolutePath().toString());
        log("deployed library.ear");
        OwnApplications.checkLibrary(new Http(domain.httpPort()), db, ADMIN_PASSWORD, VIEWER_PASSWORD, false);
        asadmin.ok("undeploy", "library");
        log("library application: read model, console, health and metrics ok");
    }

    @Test
    @Order(3)
    void theSingleWarBuiltWithTheEclipseLinkWarStarterRefreshesItsReadModel() throws Exception {
        OwnApplications.requireEclipseLinkOnly(notesWar);
        asadmin.ok("deploy", "--name", "notes", "--contextroot", "notes", notesWar.toAbsolutePath().toString());
        log("deployed notes.war");
        OwnApplications.checkNotes(new Http(domain.httpPort()), ADMIN_PASSWORD);
        asadmin.ok("undeploy", "notes");
        log("single WAR: read model, health and metrics ok");
    }
}
