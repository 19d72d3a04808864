package dev.projections.payara;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.CookieManager;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The demo EAR's Payara flavour on Payara Server 6, set up the way README "Running on Payara" tells an operator to:
 * a domain of its own (portbase 14800: admin 14848, HTTP 14880, so nothing collides with the WildFly tests), the
 * PostgreSQL driver, a pool behind {@code jdbc/__default}, a file realm {@code Projections} with an admin and a
 * viewer, group-to-role mapping, then {@code asadmin deploy}. Checked over HTTP and SQL: marking and after-commit
 * refresh, the sweep timer, a rebuild started from the console to FINISHED, the console's login and pages, health and
 * metrics; then that a persistence unit on EclipseLink without the marking customizer fails the deployment naming it,
 * and that one with it (the shelf application) is marked in its JTA transactions. The domain is stopped at the end
 * whatever happened.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PayaraIT {

    private static final String DOMAIN = "projections";
    private static final String APP = "projections";
    private static final String ADMIN_PASSWORD = "admin-secret-" + Long.toHexString(System.nanoTime());
    private static final String VIEWER_PASSWORD = "viewer-secret-" + Long.toHexString(System.nanoTime());

    private final Path home = Path.of(property("payara.home", "target/payara/payara6"));
    private final Path ear = Path.of(property("payara.ear", "../projection-ear-payara/target/projection-ear-payara.ear"));
    private final Path driver = Path.of(property("payara.driver", "target/driver/postgresql.jar"));
    private final Path eclipseLinkMarking = Path.of(property("payara.eclipselink-marking",
            "target/driver/projection-eclipselink.jar"));
    private final Path domains = Path.of(property("payara.domains", "target/domains")).toAbsolutePath();
    private final int portBase = Integer.parseInt(property("payara.portbase", "14800"));
    private final int adminPort = portBase + 48;
    private final int httpPort = portBase + 80;
    private final String dbHost = property("payara.db.host", "127.0.0.1");
    private final int dbPort = Integer.parseInt(property("payara.db.port", "5432"));
    private final String dbName = property("payara.db.name", "projection_payara");
    private final String dbUser = property("payara.db.user", "postgres");
    private final String dbPassword = property("payara.db.password", "");

    private final Asadmin asadmin = new Asadmin(home, adminPort);
    private final long started = System.nanoTime();
    private boolean domainStarted;

    private static String property(String name, String fallback) {
        String value = System.getProperty(name);
        return value == null || value.isBlank() ? fallback : value;
    }

    private void log(String message) {
        System.out.printf("[payara %5.1fs] %s%n", (System.nanoTime() - started) / 1e9, message);
    }

    // ------------------------------------------------------------------ the domain

    @BeforeAll
    void startDomainAndDeploy() throws Exception {
        assertThat(home.resolve("bin/asadmin")).as("the unpacked distribution").exists();
        assertThat(ear).as("the EAR (mvn package -pl projection-ear-payara)").exists();
        Runtime.getRuntime().addShutdownHook(new Thread(this::stopDomain)); // an aborted run leaves no server behind

        if (Files.isDirectory(domains.resolve(DOMAIN))) {
            asadmin.local(120, "stop-domain", "--domaindir", domains.toString(), DOMAIN); // a run that died before
            deleteTree(domains.resolve(DOMAIN));
        }
        for (int port : new int[] {adminPort, httpPort, portBase + 81, portBase + 37}) {
            requireFree(port);
        }
        recreateDatabase();

        log("create-domain (portbase " + portBase + ")");
        Asadmin.Result created = asadmin.local(300, "create-domain", "--domaindir", domains.toString(), "--portbase",
                Integer.toString(portBase), "--nopassword", DOMAIN);
        assertThat(created.ok()).as(created.output()).isTrue();
        log("start-domain");
        domainStarted = true;
        Asadmin.Result start = asadmin.local(300, "start-domain", "--domaindir", domains.toString(), DOMAIN);
        assertThat(start.ok()).as(start.output()).isTrue();

        log("driver, pool, jdbc/__default, settings, realm, users");
        asadmin.ok("add-library", driver.toAbsolutePath().toString());
        // Payara wants a password property even where PostgreSQL's trust authentication ignores it
        String password = dbPassword.isEmpty() ? "trust-ignores-it" : dbPassword;
        asadmin.ok("create-jdbc-connection-pool",
                "--datasourceclassname", "org.postgresql.ds.PGSimpleDataSource", "--restype", "javax.sql.DataSource",
                "--steadypoolsize", "2", "--maxpoolsize", "30",
                "--isconnectvalidatereq", "true", "--validationmethod", "custom-validation",
                "--validationclassname", "org.glassfish.api.jdbc.validation.PostgresConnectionValidation",
                "--failconnection", "true",
                "--property", "serverName=" + dbHost + ":portNumber=" + dbPort + ":databaseName=" + dbName
                        + ":user=" + dbUser + ":password=" + password,
                "ProjectionPool");
        asadmin.ok("ping-connection-pool", "ProjectionPool");
        asadmin.ok("set", "resources.jdbc-resource.jdbc/__default.pool-name=ProjectionPool");
        // the demo's unit and DemoSchema use java:comp/DefaultDataSource; the engine is told the same resource, and
        // sweeps every 2 s so that the sweep test is quick
        asadmin.ok("create-system-properties", "projection.datasource=jdbc/__default:projection.sweep-interval=2s");
        asadmin.ok("create-auth-realm", "--classname", "com.sun.enterprise.security.auth.realm.file.FileRealm",
                "--property", "file=${com.sun.aas.instanceRoot}/config/projections-keyfile:jaas-context=fileRealm",
                "Projections");
        asadmin.okWithPassword(ADMIN_PASSWORD, "create-file-user", "--authrealmname", "Projections",
                "--groups", "projection-admin", "admin");
        asadmin.okWithPassword(VIEWER_PASSWORD, "create-file-user", "--authrealmname", "Projections",
                "--groups", "projection-viewer", "viewer");
        asadmin.ok("set", "configs.config.server-config.security-service.activate-default-principal-to-role-mapping=true");

        log("deploy " + ear.getFileName());
        asadmin.ok("deploy", "--name", APP, ear.toAbsolutePath().toString());
        log("deployed");
    }

    @AfterAll
    void stopDomain() {
        synchronized (this) {
            if (!domainStarted) {
                return;
            }
            domainStarted = false;
        }
        log("stop-domain");
        Asadmin.Result stopped = asadmin.local(180, "stop-domain", "--domaindir", domains.toString(), "--kill=false",
                DOMAIN);
        if (!stopped.ok()) {
            log("stop-domain failed, killing it: " + stopped.output());
            asadmin.local(60, "stop-domain", "--domaindir", domains.toString(), "--kill=true", DOMAIN);
        }
        log("stopped");
    }

    private static void requireFree(int port) {
        try (ServerSocket socket = new ServerSocket(port)) {
            socket.setReuseAddress(true);
        } catch (IOException e) {
            throw new IllegalStateException("port " + port + " is taken: another Payara domain? (-Dpayara.portbase=…)", e);
        }
    }

    // ------------------------------------------------------------------ the behaviours

    @Test
    @Order(1)
    void anEntityChangeIsMarkedAndItsReadModelRefreshedAfterCommit() throws Exception {
        Http http = new Http();
        HttpResponse<String> created = http.postJson("/demo/api/orders",
                "{\"customer\":\"payara-alice\",\"lines\":[{\"sku\":\"a\",\"quantity\":2,\"price\":9.5}]}");
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        String id = group("\"id\":(\\d+)", created.body());

        String row = awaitBody(http, "/demo/api/search/orders/" + id, body -> body.contains("\"status\":\"NEW\""));
        assertThat(row).contains("\"customerName\":\"payara-alice\"", "\"lineCount\":1", "\"total\":19.00");

        HttpResponse<String> paid = http.putJson("/demo/api/orders/" + id + "/status", "{\"status\":\"PAID\"}");
        assertThat(paid.statusCode()).as(paid.body()).isEqualTo(200);
        awaitBody(http, "/demo/api/search/orders/" + id, body -> body.contains("\"status\":\"PAID\""));
        awaitBody(http, "/demo/api/stats/customers/payara-alice", body -> body.contains("\"orderCount\":1"));
        awaitNoMarks();
        log("marking and after-commit refresh: ok (order " + id + ")");
    }

    @Test
    @Order(2)
    void theSweepTimerRefreshesAMarkNoHandOffAnnounced() throws Exception {
        Http http = new Http();
        HttpResponse<String> created = http.postJson("/demo/api/orders",
                "{\"customer\":\"payara-bob\",\"lines\":[{\"sku\":\"b\",\"quantity\":1,\"price\":3}]}");
        String id = group("\"id\":(\\d+)", created.body());
        awaitBody(http, "/demo/api/search/orders/" + id, body -> body.contains("\"status\":\"NEW\""));

        // behind Hibernate's back: the change and its mark by plain SQL, so only the sweep can find it
        try (Connection db = database(); Statement sql = db.createStatement()) {
            sql.executeUpdate("UPDATE orders SET status = 'SHIPPED' WHERE id = " + id);
            sql.executeUpdate("INSERT INTO projection_pending (projection, tenant_id, entity_id, generation, available_at,"
                    + " first_marked_at) VALUES ('order-search', '', '" + id + "', gen_random_uuid()::text, now(), now())");
        }
        awaitBody(http, "/demo/api/search/orders/" + id, body -> body.contains("\"status\":\"SHIPPED\""));
        awaitNoMarks();
        log("sweep: ok (order " + id + ")");
    }

    @Test
    @Order(3)
    void theConsoleLogsInWithTheFileRealmAndShowsItsPages() throws Exception {
        Http anonymous = new Http();
        assertThat(anonymous.get("/projections/").body()).as("the login page").contains("j_security_check");
        assertThat(anonymous.login("admin", "wrong-password").body()).contains("Wrong user or password");

        Http viewer = new Http();
        String viewerOverview = viewer.login("viewer", VIEWER_PASSWORD).body();
        assertThat(viewerOverview).contains("order-search", "customer-stats", "Log out").doesNotContain("Rebuild…");

        Http admin = new Http();
        String overview = admin.login("admin", ADMIN_PASSWORD).body();
        assertThat(overview).contains("order-search", "customer-stats", "Rebuild…", "Log out");
        for (String page : new String[] {"marks.xhtml?projection=order-search", "tenants.xhtml", "audit.xhtml"}) {
            HttpResponse<String> response = admin.get("/projections/" + page);
            assertThat(response.statusCode()).as(page).isEqualTo(200);
            assertThat(response.body()).as(page).contains("Log out").doesNotContain("j_security_check");
        }
        HttpResponse<String> headers = admin.get("/projections/");
        assertThat(headers.headers().firstValue("X-Frame-Options")).hasValue("DENY");
        HttpResponse<String> fresh = new Http().get("/projections/");
        assertThat(fresh.headers().allValues("Set-Cookie")).as("the session cookie (WEB-INF/payara-web.xml)")
                .anySatisfy(cookie -> assertThat(cookie).contains("JSESSIONID", "HttpOnly").containsIgnoringCase("SameSite=Strict"));
        log("console: ok");
    }

    @Test
    @Order(4)
    void whileItsProjectionIsPausedAChangeStaysMarkedUntilResumed() throws Exception {
        Http admin = new Http();
        String overview = admin.login("admin", ADMIN_PASSWORD).body();
        String paused = click(admin, overview, "order-search", "pause", "Pause");
        assertThat(rowOf(paused, "order-search")).contains("value=\"Resume\"");

        Http api = new Http();
        HttpResponse<String> created = api.postJson("/demo/api/orders",
                "{\"customer\":\"payara-carol\",\"lines\":[{\"sku\":\"c\",\"quantity\":1,\"price\":1}]}");
        String id = group("\"id\":(\\d+)", created.body());
        // the mark was written with the order's commit and waits: no drainer takes a paused projection's marks
        awaitBody(api, "/demo/api/stats/customers/payara-carol", body -> body.contains("\"orderCount\":1"));
        try (Connection db = database(); Statement sql = db.createStatement();
             ResultSet rs = sql.executeQuery("SELECT count(*) FROM projection_pending"
                     + " WHERE projection = 'order-search' AND entity_id = '" + id + "'")) {
            rs.next();
            assertThat(rs.getLong(1)).as("order-search's mark of order " + id).isEqualTo(1);
        }
        assertThat(api.get("/demo/api/search/orders/" + id).statusCode()).isEqualTo(404);

        click(admin, paused, "order-search", "resume", "Resume");
        awaitBody(api, "/demo/api/search/orders/" + id, body -> body.contains("\"status\":\"NEW\""));
        awaitNoMarks();
        log("pause and resume: ok (order " + id + " marked while paused, refreshed after)");
    }

    @Test
    @Order(5)
    void aRebuildStartedFromTheConsoleRunsToFinished() throws Exception {
        Http admin = new Http();
        String overview = admin.login("admin", ADMIN_PASSWORD).body();
        String button = group("name=\"(overview:projections:\\d+:rebuild)\"[^>]*", rowOf(overview, "order-search"));
        String asked = admin.postForm("/projections/index.xhtml", Map.of("overview", "overview", button, "Rebuild…",
                "jakarta.faces.ViewState", viewState(overview))).body();
        assertThat(asked).contains("Rebuild order-search?");
        String started = admin.postForm("/projections/index.xhtml", Map.of("overview", "overview",
                "overview:tenant", "all", "overview:yes", "Yes, go ahead",
                "jakarta.faces.ViewState", viewState(asked))).body();
        assertThat(started).contains("rebuild started");

        String state = await(() -> {
            try (Connection db = database(); Statement sql = db.createStatement();
                 ResultSet rs = sql.executeQuery("SELECT state, marked FROM projection_rebuild"
                         + " WHERE projection = 'order-search' ORDER BY started_at DESC LIMIT 1")) {
                return rs.next() ? rs.getString(1) + " " + rs.getLong(2) : "none";
            }
        }, s -> s.startsWith("FINISHED"), Duration.ofSeconds(60));
        assertThat(Long.parseLong(state.split(" ")[1])).as("marked ids").isGreaterThanOrEqualTo(2);
        awaitNoMarks();
        assertThat(admin.get("/projections/audit.xhtml").body()).contains("admin").containsIgnoringCase("rebuild");
        log("rebuild: ok (" + state + ")");
    }

    @Test
    @Order(6)
    void healthAndMetricsAreServed() throws Exception {
        Http http = new Http();
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
        rewriteEar(ear, withEclipseLink, Set.of("demo.jar", "demo-web.war", "projection-web-console.war"),
                "lib/reports-unit.jar", jar("META-INF/persistence.xml", """
                <persistence xmlns="https://jakarta.ee/xml/ns/persistence" version="3.0">
                  <persistence-unit name="reports" transaction-type="JTA">
                    <exclude-unlisted-classes>true</exclude-unlisted-classes>
                  </persistence-unit>
                </persistence>
                """));
        Asadmin.Result deploy = asadmin.remote(null, "deploy", "--name", APP + "-eclipselink", withEclipseLink.toString());
        assertThat(deploy.ok()).as(deploy.output()).isFalse();
        String logged = deploy.output() + serverLog(); // asadmin says which bean failed, the log why
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
        Path shelfEar = ear.toAbsolutePath().getParent().resolve("shelf-eclipselink.ear");
        Path classes = Path.of("target/test-classes");
        Map<String, byte[]> added = new LinkedHashMap<>();
        added.put("lib/projection-eclipselink.jar", Files.readAllBytes(eclipseLinkMarking));
        added.put("shelf.jar", jar(classes, "org/example/shelf/", "", Map.of(
                "META-INF/beans.xml", "<beans xmlns=\"https://jakarta.ee/xml/ns/jakartaee\" version=\"4.0\" "
                        + "bean-discovery-mode=\"annotated\"/>",
                "META-INF/persistence.xml", """
                <persistence xmlns="https://jakarta.ee/xml/ns/persistence" version="3.0">
                  <persistence-unit name="shelf" transaction-type="JTA">
                    <class>org.example.shelf.Item</class>
                    <class>org.example.shelf.ShelfCount</class>
                    <exclude-unlisted-classes>true</exclude-unlisted-classes>
                    <properties>
                      <property name="eclipselink.session.customizer"
                                value="dev.projections.eclipselink.ProjectionSessionCustomizer"/>
                      <property name="eclipselink.ddl-generation" value="create-or-extend-tables"/>
                    </properties>
                  </persistence-unit>
                </persistence>
                """)));
        added.put("shelf.war", jar(classes, "org/example/shelf/web/", "WEB-INF/classes/", Map.of()));
        // no Hibernate ORM in lib/, and no integration of it: the engine needs no JPA provider of its own
        rewriteEar(ear, shelfEar, Set.of("demo.jar", "demo-web.war", "projection-web-console.war"),
                library -> library.contains("hibernate") || library.contains("projection-payara"), added,
                "<module><ejb>shelf.jar</ejb></module><module><web><web-uri>shelf.war</web-uri>"
                        + "<context-root>/shelf</context-root></web></module>");
        asadmin.ok("deploy", "--name", APP + "-shelf", shelfEar.toString());
        log("deployed the shelf application on EclipseLink");

        Http http = new Http();
        assertThat(http.postJson("/shelf/api/items/1?shelf=a", "").statusCode()).isEqualTo(204);
        assertThat(http.postJson("/shelf/api/items/2?shelf=a", "").statusCode()).isEqualTo(204);
        awaitBody(http, "/shelf/api/items/counts/a", "2"::equals);

        // a move marks the shelf it left and the one it reached
        assertThat(http.putJson("/shelf/api/items/2?shelf=b", "").statusCode()).isEqualTo(204);
        awaitBody(http, "/shelf/api/items/counts/b", "1"::equals);
        awaitBody(http, "/shelf/api/items/counts/a", "1"::equals);
        awaitNoMarks();

        // a rollback after a flush: nothing marked, nothing refreshed
        assertThat(http.postJson("/shelf/api/items/3/failing?shelf=c", "").statusCode()).isEqualTo(409);
        try (Connection db = database(); Statement sql = db.createStatement();
             ResultSet rs = sql.executeQuery("SELECT count(*) FROM projection_pending WHERE projection = 'shelf-counts'")) {
            rs.next();
            assertThat(rs.getLong(1)).as("marks of a rolled-back transaction").isZero();
        }

        // markDirty and an entity change in one transaction: both keys refreshed after its commit
        try (Connection db = database(); Statement sql = db.createStatement()) {
            sql.executeUpdate("INSERT INTO shelf_item (id, shelf, name) VALUES (9, 'd', 'behind JPA')");
        }
        assertThat(http.postJson("/shelf/api/items/4/marking?shelf=e&mark=d", "").statusCode()).isEqualTo(204);
        awaitBody(http, "/shelf/api/items/counts/e", "1"::equals);
        awaitBody(http, "/shelf/api/items/counts/d", "1"::equals);
        awaitNoMarks();
        assertThat(http.get("/shelf/api/items/counts/c").statusCode()).as("the rolled-back shelf").isEqualTo(404);
        log("EclipseLink unit: marked at commit, handed over, moves and explicit marks refreshed, rollback unmarked");
    }

    // ------------------------------------------------------------------ HTTP

    private final class Http {
        private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).cookieHandler(new CookieManager())
                .followRedirects(HttpClient.Redirect.NORMAL).connectTimeout(Duration.ofSeconds(10)).build();

        HttpResponse<String> get(String path) throws Exception {
            return send(HttpRequest.newBuilder(uri(path)).GET());
        }

        HttpResponse<String> postJson(String path, String json) throws Exception {
            return send(HttpRequest.newBuilder(uri(path)).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(json)));
        }

        HttpResponse<String> putJson(String path, String json) throws Exception {
            return send(HttpRequest.newBuilder(uri(path)).header("Content-Type", "application/json")
                    .PUT(HttpRequest.BodyPublishers.ofString(json)));
        }

        HttpResponse<String> postForm(String path, Map<String, String> fields) throws Exception {
            String body = new LinkedHashMap<>(fields).entrySet().stream()
                    .map(e -> URLEncoder.encode(e.getKey(), StandardCharsets.UTF_8) + "="
                            + URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8))
                    .collect(Collectors.joining("&"));
            return send(HttpRequest.newBuilder(uri(path)).header("Content-Type", "application/x-www-form-urlencoded")
                    .POST(HttpRequest.BodyPublishers.ofString(body)));
        }

        /** Servlet FORM login: ask for a protected page, post the form, land on the page (or the error page). */
        HttpResponse<String> login(String user, String password) throws Exception {
            get("/projections/");
            return postForm("/projections/j_security_check", Map.of("j_username", user, "j_password", password));
        }

        private HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
            return client.send(request.timeout(Duration.ofSeconds(30)).build(),
                    HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        }

        private URI uri(String path) {
            return URI.create("http://127.0.0.1:" + httpPort + path);
        }
    }

    private String awaitBody(Http http, String path, Predicate<String> done) throws Exception {
        return await(() -> {
            HttpResponse<String> response = http.get(path);
            return response.statusCode() == 200 ? response.body() : response.statusCode() + " " + response.body();
        }, done, Duration.ofSeconds(60)); // generous: the machine may be busy with other builds
    }

    private void awaitNoMarks() throws Exception {
        await(() -> {
            try (Connection db = database(); Statement sql = db.createStatement();
                 ResultSet rs = sql.executeQuery("SELECT count(*) FROM projection_pending")) {
                rs.next();
                return rs.getLong(1);
            }
        }, count -> count == 0, Duration.ofSeconds(60));
    }

    private interface Probe<T> {
        T read() throws Exception;
    }

    private static <T> T await(Probe<T> probe, Predicate<T> done, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        T last = probe.read();
        while (!done.test(last)) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("still not there after " + timeout.toSeconds() + " s: " + last);
            }
            Thread.sleep(200);
            last = probe.read();
        }
        return last;
    }

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

    // ------------------------------------------------------------------ SQL and files

    private Connection database() throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://" + dbHost + ":" + dbPort + "/" + dbName, dbUser, dbPassword);
    }

    private void recreateDatabase() throws SQLException {
        try (Connection admin = DriverManager.getConnection("jdbc:postgresql://" + dbHost + ":" + dbPort + "/postgres",
                dbUser, dbPassword); Statement sql = admin.createStatement()) {
            sql.execute("DROP DATABASE IF EXISTS " + dbName + " WITH (FORCE)");
            sql.execute("CREATE DATABASE " + dbName);
        }
        log("database " + dbName + " created afresh");
    }

    private static byte[] jar(String name, String content) throws IOException {
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        try (ZipOutputStream zip = new ZipOutputStream(bytes)) {
            zip.putNextEntry(new ZipEntry(name));
            zip.write(content.getBytes(StandardCharsets.UTF_8));
            zip.closeEntry();
        }
        return bytes.toByteArray();
    }

    /** A copy of an EAR without some modules (left out of its application.xml too) and with one entry more. */
    private static void rewriteEar(Path source, Path target, Set<String> withoutModules, String name, byte[] content)
            throws IOException {
        rewriteEar(source, target, withoutModules, Map.of(name, content), "");
    }

    /**
     * A copy of an EAR without some modules and with entries more; {@code modules} is added to its application.xml
     * (the {@code <module>} elements of added modules).
     */
    private static void rewriteEar(Path source, Path target, Set<String> withoutModules, Map<String, byte[]> added,
                                   String modules) throws IOException {
        rewriteEar(source, target, withoutModules, name -> false, added, modules);
    }

    /** As above, leaving out the library jars {@code withoutLibraries} accepts too. */
    private static void rewriteEar(Path source, Path target, Set<String> withoutModules,
                                   Predicate<String> withoutLibraries, Map<String, byte[]> added, String modules)
            throws IOException {
        try (InputStream in = Files.newInputStream(source); ZipInputStream zipIn = new ZipInputStream(in);
             OutputStream out = Files.newOutputStream(target); ZipOutputStream zipOut = new ZipOutputStream(out)) {
            for (ZipEntry entry = zipIn.getNextEntry(); entry != null; entry = zipIn.getNextEntry()) {
                if (withoutModules.contains(entry.getName())
                        || entry.getName().startsWith("lib/") && withoutLibraries.test(entry.getName())) {
                    continue;
                }
                zipOut.putNextEntry(new ZipEntry(entry.getName()));
                if (entry.getName().equals("META-INF/application.xml")) {
                    String xml = new String(zipIn.readAllBytes(), StandardCharsets.UTF_8);
                    for (String module : withoutModules) {
                        xml = xml.replaceAll("(?s)<module>(?:(?!</module>).)*?" + Pattern.quote(module)
                                + "(?:(?!</module>).)*?</module>", "");
                    }
                    int lastModule = xml.lastIndexOf("</module>") + "</module>".length(); // modules come first
                    xml = xml.substring(0, lastModule) + modules + xml.substring(lastModule);
                    zipOut.write(xml.getBytes(StandardCharsets.UTF_8));
                } else {
                    zipIn.transferTo(zipOut);
                }
                zipOut.closeEntry();
            }
            for (Map.Entry<String, byte[]> entry : added.entrySet()) {
                zipOut.putNextEntry(new ZipEntry(entry.getKey()));
                zipOut.write(entry.getValue());
                zipOut.closeEntry();
            }
        }
    }

    /**
     * A jar of the compiled classes directly in package directory {@code pkg} under {@code classes}, each under
     * {@code prefix}, and of {@code texts} (name → content).
     */
    private static byte[] jar(Path classes, String pkg, String prefix, Map<String, String> texts) throws IOException {
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        try (ZipOutputStream zip = new ZipOutputStream(bytes);
             Stream<Path> files = Files.list(classes.resolve(pkg))) {
            for (Path file : files.filter(f -> f.toString().endsWith(".class")).sorted().toList()) {
                zip.putNextEntry(new ZipEntry(prefix + pkg + file.getFileName()));
                zip.write(Files.readAllBytes(file));
                zip.closeEntry();
            }
            for (Map.Entry<String, String> text : texts.entrySet()) {
                zip.putNextEntry(new ZipEntry(text.getKey()));
                zip.write(text.getValue().getBytes(StandardCharsets.UTF_8));
                zip.closeEntry();
            }
        }
        return bytes.toByteArray();
    }

    /** The domain's log, rotated files included (the domain is this run's own). */
    private String serverLog() throws IOException {
        StringBuilder all = new StringBuilder();
        try (Stream<Path> files = Files.list(domains.resolve(DOMAIN).resolve("logs"))) {
            for (Path file : files.filter(f -> f.getFileName().toString().startsWith("server.log")).sorted().toList()) {
                all.append(new String(Files.readAllBytes(file), StandardCharsets.UTF_8));
            }
        }
        return all.toString();
    }

    private static void deleteTree(Path root) throws IOException {
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }
}
