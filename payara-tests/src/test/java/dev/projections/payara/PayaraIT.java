package dev.projections.payara;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Payara Server 6 set up the way docs/guide/payara-glassfish.md "Running on Payara and GlassFish" tells an operator to: a domain of its own
 * (portbase 14800: admin 14848, HTTP 14880, so nothing collides with the WildFly tests), the PostgreSQL driver, the
 * database's coordinates, {@code asadmin multimode --file docs/install/glassfish.asadmin}, operators; for the demo the
 * server's default datasource on the script's pool. First the demo EAR's Payara flavour (Hibernate bundled), checked
 * over HTTP and SQL: marking and after-commit refresh, the sweep timer, a rebuild started from the console to
 * FINISHED, the console's login and pages, health and metrics; then that a persistence unit on EclipseLink without the
 * marking customizer fails the deployment naming it, that one with it (the shelf application) is marked in its JTA
 * transactions, and that it-tests' library application and single WAR, built for EclipseLink, run. The domain is
 * stopped at the end whatever happened.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PayaraIT {

    private static final String DOMAIN = "projections";
    private static final String APP = "projections";
    private static final String ADMIN_PASSWORD = "admin-secret-" + Long.toHexString(System.nanoTime());
    private static final String VIEWER_PASSWORD = "viewer-secret-" + Long.toHexString(System.nanoTime());

    private final Path ear = Path.of(property("payara.ear", "../projection-ear-payara/target/projection-ear-payara.ear"));
    private final Path driver = Path.of(property("payara.driver", "target/driver/postgresql.jar"));
    private final Path script = Path.of(property("glassfish.script", "../docs/install/glassfish.asadmin"));
    private final Path libraryEar = Path.of(property("library.ear", "target/it/library-app/library-ear/target/library.ear"));
    private final Path notesWar = Path.of(property("notes.war", "target/it/notes-war/target/notes.war"));
    private final Path eclipseLinkMarking = Path.of(property("payara.eclipselink-marking",
            "target/driver/projection-eclipselink.jar"));
    private final Database db = new Database(property("payara.db.host", "127.0.0.1"),
            Integer.parseInt(property("payara.db.port", "5432")), property("payara.db.name", "projection_payara"),
            property("payara.db.user", "postgres"), property("payara.db.password", ""));
    private final long started = System.nanoTime();
    private final Domain domain = new Domain(Path.of(property("payara.home", "target/payara/payara6")),
            Path.of(property("payara.domains", "target/domains")), DOMAIN,
            Integer.parseInt(property("payara.portbase", "14800")), this::log);
    private final Asadmin asadmin = domain.asadmin();
    private final int httpPort = domain.httpPort();

    static String property(String name, String fallback) {
        String value = System.getProperty(name);
        return value == null || value.isBlank() ? fallback : value;
    }

    private void log(String message) {
        System.out.printf("[payara %5.1fs] %s%n", (System.nanoTime() - started) / 1e9, message);
    }

    // ------------------------------------------------------------------ the domain

    @BeforeAll
    void startDomainAndDeploy() throws Exception {
        assertThat(ear).as("the EAR (mvn package -pl projection-ear-payara)").exists();
        db.recreate();
        log("database " + db.name() + " created afresh");
        domain.createAndStart();

        log("driver, database coordinates, docs/install/glassfish.asadmin, operators");
        domain.installProjections(driver, script, db);
        domain.operator("admin", ADMIN_PASSWORD, "projection-admin");
        domain.operator("viewer", VIEWER_PASSWORD, "projection-viewer");
        // the library application's operators, for the last test
        domain.operator("alice", ADMIN_PASSWORD, "projection-admin");
        domain.operator("bob", VIEWER_PASSWORD, "projection-viewer");
        // the demo's unit and DemoSchema use java:comp/DefaultDataSource: the server's default on the script's pool,
        // told to the engine; a sweep every 2 s keeps the sweep test quick
        domain.defaultDatasourceOnTheProjectionsPool();
        asadmin.ok("create-system-properties", "projection.datasource=jdbc/__default:projection.sweep-interval=2s");

        log("deploy " + ear.getFileName());
        asadmin.ok("deploy", "--name", APP, ear.toAbsolutePath().toString());
        log("deployed");
    }

    @AfterAll
    void stopDomain() {
        domain.stop();
    }

    // ------------------------------------------------------------------ the behaviours

    @Test
    @Order(1)
    void anEntityChangeIsMarkedAndItsReadModelRefreshedAfterCommit() throws Exception {
        Http http = new Http(httpPort);
        HttpResponse<String> created = http.postJson("/demo/api/orders",
                "{\"customer\":\"payara-alice\",\"lines\":[{\"sku\":\"a\",\"quantity\":2,\"price\":9.5}]}");
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        String id = group("\"id\":(\\d+)", created.body());

        String row = Awaits.body(http, "/demo/api/search/orders/" + id, body -> body.contains("\"status\":\"NEW\""));
        assertThat(row).contains("\"customerName\":\"payara-alice\"", "\"lineCount\":1", "\"total\":19.00");

        HttpResponse<String> paid = http.putJson("/demo/api/orders/" + id + "/status", "{\"status\":\"PAID\"}");
        assertThat(paid.statusCode()).as(paid.body()).isEqualTo(200);
        Awaits.body(http, "/demo/api/search/orders/" + id, body -> body.contains("\"status\":\"PAID\""));
        Awaits.body(http, "/demo/api/stats/customers/payara-alice", body -> body.contains("\"orderCount\":1"));
        db.awaitNoMarks();
        log("marking and after-commit refresh: ok (order " + id + ")");
    }

    @Test
    @Order(2)
    void theSweepTimerRefreshesAMarkNoHandOffAnnounced() throws Exception {
        Http http = new Http(httpPort);
        HttpResponse<String> created = http.postJson("/demo/api/orders",
                "{\"customer\":\"payara-bob\",\"lines\":[{\"sku\":\"b\",\"quantity\":1,\"price\":3}]}");
        String id = group("\"id\":(\\d+)", created.body());
        Awaits.body(http, "/demo/api/search/orders/" + id, body -> body.contains("\"status\":\"NEW\""));

        // behind Hibernate's back: the change and its mark by plain SQL, so only the sweep can find it
        try (Connection connection = db.connect(); Statement sql = connection.createStatement()) {
            sql.executeUpdate("UPDATE orders SET status = 'SHIPPED' WHERE id = " + id);
            sql.executeUpdate("INSERT INTO projection_pending (projection, tenant_id, entity_id, generation, available_at,"
                    + " first_marked_at) VALUES ('order-search', '', '" + id + "', gen_random_uuid()::text, now(), now())");
        }
        Awaits.body(http, "/demo/api/search/orders/" + id, body -> body.contains("\"status\":\"SHIPPED\""));
        db.awaitNoMarks();
        log("sweep: ok (order " + id + ")");
    }

    @Test
    @Order(3)
    void theConsoleLogsInWithTheFileRealmAndShowsItsPages() throws Exception {
        Http anonymous = new Http(httpPort);
        assertThat(anonymous.get("/projections/").body()).as("the login page").contains("j_security_check");
        assertThat(anonymous.login("admin", "wrong-password").body()).contains("Wrong user or password");

        Http viewer = new Http(httpPort);
        String viewerOverview = viewer.login("viewer", VIEWER_PASSWORD).body();
        assertThat(viewerOverview).contains("order-search", "customer-stats", "Log out").doesNotContain("Rebuild…");

        Http admin = new Http(httpPort);
        String overview = admin.login("admin", ADMIN_PASSWORD).body();
        assertThat(overview).contains("order-search", "customer-stats", "Rebuild…", "Log out");
        for (String page : new String[] {"marks.xhtml?projection=order-search", "tenants.xhtml", "audit.xhtml"}) {
            HttpResponse<String> response = admin.get("/projections/" + page);
            assertThat(response.statusCode()).as(page).isEqualTo(200);
            assertThat(response.body()).as(page).contains("Log out").doesNotContain("j_security_check");
        }
        HttpResponse<String> headers = admin.get("/projections/");
        assertThat(headers.headers().firstValue("X-Frame-Options")).hasValue("DENY");
        HttpResponse<String> fresh = new Http(httpPort).get("/projections/");
        assertThat(fresh.headers().allValues("Set-Cookie")).as("the session cookie (WEB-INF/payara-web.xml)")
                .anySatisfy(cookie -> assertThat(cookie).contains("JSESSIONID", "HttpOnly").containsIgnoringCase("SameSite=Strict"));
        log("console: ok");
    }

    @Test
    @Order(4)
    void whileItsProjectionIsPausedAChangeStaysMarkedUntilResumed() throws Exception {
        Http admin = new Http(httpPort);
        String overview = admin.login("admin", ADMIN_PASSWORD).body();
        String paused = click(admin, overview, "order-search", "pause", "Pause");
        assertThat(rowOf(paused, "order-search")).contains("value=\"Resume\"");

        Http api = new Http(httpPort);
        HttpResponse<String> created = api.postJson("/demo/api/orders",
                "{\"customer\":\"payara-carol\",\"lines\":[{\"sku\":\"c\",\"quantity\":1,\"price\":1}]}");
        String id = group("\"id\":(\\d+)", created.body());
        // the mark was written with the order's commit and waits: no drainer takes a paused projection's marks
        Awaits.body(api, "/demo/api/stats/customers/payara-carol", body -> body.contains("\"orderCount\":1"));
        try (Connection connection = db.connect(); Statement sql = connection.createStatement();
             ResultSet rs = sql.executeQuery("SELECT count(*) FROM projection_pending"
                     + " WHERE projection = 'order-search' AND entity_id = '" + id + "'")) {
            rs.next();
            assertThat(rs.getLong(1)).as("order-search's mark of order " + id).isEqualTo(1);
        }
        assertThat(api.get("/demo/api/search/orders/" + id).statusCode()).isEqualTo(404);

        click(admin, paused, "order-search", "resume", "Resume");
        Awaits.body(api, "/demo/api/search/orders/" + id, body -> body.contains("\"status\":\"NEW\""));
        db.awaitNoMarks();
        log("pause and resume: ok (order " + id + " marked while paused, refreshed after)");
    }

    @Test
    @Order(5)
    void aRebuildStartedFromTheConsoleRunsToFinished() throws Exception {
        Http admin = new Http(httpPort);
        String overview = admin.login("admin", ADMIN_PASSWORD).body();
        String button = group("name=\"(overview:projections:\\d+:rebuild)\"[^>]*", rowOf(overview, "order-search"));
        String asked = admin.postForm("/projections/index.xhtml", Map.of("overview", "overview", button, "Rebuild…",
                "jakarta.faces.ViewState", viewState(overview))).body();
        assertThat(asked).contains("Rebuild order-search?");
        String started = admin.postForm("/projections/index.xhtml", Map.of("overview", "overview",
                "overview:tenant", "all", "overview:yes", "Yes, go ahead",
                "jakarta.faces.ViewState", viewState(asked))).body();
        assertThat(started).contains("rebuild started");

        String state = Awaits.until(() -> {
            try (Connection connection = db.connect(); Statement sql = connection.createStatement();
                 ResultSet rs = sql.executeQuery("SELECT state, marked FROM projection_rebuild"
                         + " WHERE projection = 'order-search' ORDER BY started_at DESC LIMIT 1")) {
                return rs.next() ? rs.getString(1) + " " + rs.getLong(2) : "none";
            }
        }, s -> s.startsWith("FINISHED"), Duration.ofSeconds(60));
        assertThat(Long.parseLong(state.split(" ")[1])).as("marked ids").isGreaterThanOrEqualTo(2);
        db.awaitNoMarks();
        assertThat(admin.get("/projections/audit.xhtml").body()).contains("admin").containsIgnoringCase("rebuild");
        log("rebuild: ok (" + state + ")");
    }

    @Test
    @Order(6)
    void healthAndMetricsAreServed() throws Exception {
        Http http = new Http(httpPort);
        HttpResponse<String> health = http.get("/projections/health");
        assertThat(health.statusCode()).as(health.body()).isEqualTo(200);
        assertThat(health.body()).contains("\"status\":\"UP\"", "\"lastSweep\"");
        HttpResponse<String> metrics = http.get("/projections/metrics");
        assertThat(metrics.statusCode()).isEqualTo(200);
        assertThat(metrics.body()).contains("projection_pending", "projection_refresh_seconds_count");
        log("health and metrics: ok");
    }

    @Test
    @Order(7)
    void aPersistenceUnitOnEclipseLinkFailsTheDeploymentNamingIt() throws Exception {
        asadmin.ok("undeploy", APP);
        // the engine's part of the EAR (no demo, no WARs: quicker) plus a unit that names no provider, in a jar of lib/:
        // Payara runs that unit on EclipseLink
        Path withEclipseLink = ear.toAbsolutePath().getParent().resolve("projection-ear-payara-eclipselink-unit.ear");
        EarFiles.rewrite(ear, withEclipseLink, Set.of("demo.jar", "demo-web.war", "projection-web-console.war"),
                "lib/reports-unit.jar", EarFiles.jar("META-INF/persistence.xml", """
                <persistence xmlns="https://jakarta.ee/xml/ns/persistence" version="3.0">
                  <persistence-unit name="reports" transaction-type="JTA">
                    <!-- may hold any entity of its jar, so a @Projected one: the engine cannot tell it needs nothing -->
                    <exclude-unlisted-classes>false</exclude-unlisted-classes>
                  </persistence-unit>
                </persistence>
                """));
        Asadmin.Result deploy = asadmin.remote(null, "deploy", "--name", APP + "-eclipselink", withEclipseLink.toString());
        assertThat(deploy.ok()).as(deploy.output()).isFalse();
        String logged = deploy.output() + domain.serverLog(); // asadmin says which bean failed, the log why
        assertThat(logged).contains("persistence unit reports (",
                "names no provider, so it runs on this server's default, org.eclipse.persistence.jpa.PersistenceProvider",
                "names no session customizer",
                "<property name=\"eclipselink.session.customizer\" "
                        + "value=\"dev.projections.eclipselink.ProjectionSessionCustomizer\"/>");
        log("a unit on EclipseLink without the customizer: deployment refused, naming it");
    }

    /**
     * A unit on Payara's own provider, EclipseLink, that names projection-eclipselink's session customizer: the shelf
     * application (org.example.shelf, compiled in this module: an entity, a read model, a projection in portable JPQL,
     * container-managed JTA transactions behind JAX-RS) in the engine's part of the EAR, with projection-eclipselink in
     * lib/ and neither Hibernate ORM nor projection-hibernate. The sweep runs every 10 minutes here, so a read model
     * that arrives was handed over after the commit.
     */
    @Test
    @Order(8)
    void aUnitOnEclipseLinkWithTheSessionCustomizerIsMarkedInItsJtaTransaction() throws Exception {
        asadmin.ok("create-system-properties", "projection.sweep-interval=600s");
        Path shelfEar = ShelfApplication.ear(ear, eclipseLinkMarking);
        asadmin.ok("deploy", "--name", APP + "-shelf", shelfEar.toString());
        log("deployed the shelf application on EclipseLink");
        ShelfApplication.checkMarking(new Http(httpPort), db);
        log("EclipseLink unit: marked at commit, handed over, moves and explicit marks refreshed, rollback unmarked");
    }

    /**
     * it-tests' library application and single WAR, built with -Declipselink (the BOM and one EclipseLink starter
     * each, no Hibernate), on the datasource the script created and the engine's defaults: each alone on the server.
     */
    @Test
    @Order(9)
    void theLibraryApplicationAndTheSingleWarRunOnPayarasEclipseLink() throws Exception {
        asadmin.remote(null, "undeploy", APP + "-shelf"); // gone already if the test before failed
        asadmin.ok("delete-system-property", "projection.datasource");
        asadmin.ok("delete-system-property", "projection.sweep-interval");
        OwnApplications.requireEclipseLinkOnly(libraryEar);
        asadmin.ok("deploy", "--name", "library", libraryEar.toAbsolutePath().toString());
        OwnApplications.checkLibrary(new Http(httpPort), db, ADMIN_PASSWORD, VIEWER_PASSWORD, true);
        asadmin.ok("undeploy", "library");
        log("library application: read model, console, health and metrics ok");
        OwnApplications.requireEclipseLinkOnly(notesWar);
        asadmin.ok("deploy", "--name", "notes", "--contextroot", "notes", notesWar.toAbsolutePath().toString());
        OwnApplications.checkNotes(new Http(httpPort), ADMIN_PASSWORD);
        asadmin.ok("undeploy", "notes");
        log("single WAR: read model, health and metrics ok");
    }

    // ------------------------------------------------------------------ helpers

    private static String group(String regex, String text) {
        Matcher matcher = Pattern.compile(regex).matcher(text);
        assertThat(matcher.find()).as(regex + " in " + text).isTrue();
        return matcher.group(1);
    }

    private static String viewState(String page) {
        return group("name=\"jakarta.faces.ViewState\"[^>]*value=\"([^\"]+)\"", page);
    }

    /** Presses a button of a projection's row on the overview page {@code page}; answers the page that follows. */
    private static String click(Http http, String page, String projection, String button, String label) throws Exception {
        String name = group("name=\"(overview:projections:\\d+:" + button + ")\"", rowOf(page, projection));
        return http.postForm("/projections/index.xhtml", Map.of("overview", "overview", name, label,
                "jakarta.faces.ViewState", viewState(page))).body();
    }

    /** The overview table's row of a projection, from its name to the end of the row. */
    private static String rowOf(String page, String projection) {
        int at = page.indexOf(">" + projection + "<");
        assertThat(at).as(projection + " on the overview").isNotNegative();
        int end = page.indexOf("</tr>", at);
        return page.substring(at, end < 0 ? page.length() : end);
    }

}
