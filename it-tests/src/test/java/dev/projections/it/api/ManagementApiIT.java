package dev.projections.it.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.it.support.Await;
import dev.projections.it.support.ConsoleHttp;
import dev.projections.it.support.ConsoleUsers;
import dev.projections.it.support.Deployments;
import dev.projections.it.support.LoopbackClient;
import dev.projections.it.support.OpenApiContract;
import dev.projections.it.support.TestSql;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The JSON management API against the running server (docs/contract.md §12): every endpoint for anonymous callers,
 * viewers and admins; a runbook driven through the API alone, a rebuild to FINISHED included, with its audit rows;
 * mark lists in keyset pages and the bulk actions with their count check; bad input answered with problems naming
 * the value; the console's session cookie refused; wrong passwords slowing only the address that sends them.
 */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class ManagementApiIT {

    private static final String API = "http://127.0.0.1:8080/projections/api/v1/";
    private static final String DEMO = "http://127.0.0.1:8080/demo/api";
    private static final String PROJECTION = "order-search";

    private static final OpenApiContract CONTRACT = OpenApiContract.ofSourceTree();

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @Deployment(testable = false)
    static EnterpriseArchive deployment() {
        return Deployments.ear(Map.of("projection.sweep-interval", "2s"));
    }

    private record Endpoint(String method, String path, String body) {
    }

    private static final List<Endpoint> ENDPOINTS = List.of(
            new Endpoint("GET", "projections", null),
            new Endpoint("GET", "projections/" + PROJECTION, null),
            new Endpoint("GET", "projections/" + PROJECTION + "/marks?state=failing", null),
            new Endpoint("GET", "projections/" + PROJECTION + "/rebuilds", null),
            new Endpoint("GET", "rebuilds/no-such-run", null),
            new Endpoint("GET", "instances", null),
            new Endpoint("POST", "projections/no-such-projection/pause", ""),
            new Endpoint("POST", "projections/no-such-projection/resume", ""),
            new Endpoint("POST", "projections/no-such-projection/rebuilds", "{}"),
            new Endpoint("POST", "projections/no-such-projection/marks/retry", "{}"),
            new Endpoint("POST", "projections/no-such-projection/marks/resume", "{}"),
            new Endpoint("POST", "projections/no-such-projection/marks/skip", "{}"),
            new Endpoint("POST", "rebuilds/no-such-run/cancel", ""),
            new Endpoint("GET", "verifications/no-such-run", null),
            new Endpoint("POST", "projections/no-such-projection/verifications", "{}"),
            new Endpoint("POST", "verifications/no-such-run/cancel", ""));

    @Test
    void anonymousCallersGet401AViewerReadsButCannotActAndAnAdminDoesBoth() throws Exception {
        for (Endpoint endpoint : ENDPOINTS) {
            HttpResponse<String> anonymous = sendAnyway(endpoint.method(), endpoint.path(), endpoint.body(), null);
            assertThat(anonymous.statusCode()).as("anonymous " + endpoint).isEqualTo(401);
            assertThat(anonymous.headers().firstValue("WWW-Authenticate")).as(endpoint.toString())
                    .hasValueSatisfying(v -> assertThat(v).startsWith("Basic realm=\"Projections\""));
            assertThat(anonymous.headers().firstValue("Content-Type")).hasValue("application/problem+json;charset=UTF-8");

            HttpResponse<String> viewer = send(endpoint.method(), endpoint.path(), endpoint.body(), viewer());
            HttpResponse<String> admin = send(endpoint.method(), endpoint.path(), endpoint.body(), admin());
            if (endpoint.method().equals("GET")) {
                int expected = endpoint.path().startsWith("rebuilds/") || endpoint.path().startsWith("verifications/")
                        ? 404 : 200;
                assertThat(viewer.statusCode()).as("viewer " + endpoint + ": " + viewer.body()).isEqualTo(expected);
                assertThat(admin.statusCode()).as("admin " + endpoint + ": " + admin.body()).isEqualTo(expected);
            } else {
                assertThat(viewer.statusCode()).as("viewer " + endpoint + ": " + viewer.body()).isEqualTo(403);
                assertThat(viewer.body()).contains("acting needs role projection-admin");
                // past the role check, the admin reaches the action, which names what does not exist
                assertThat(admin.statusCode()).as("admin " + endpoint + ": " + admin.body()).isEqualTo(404);
            }
        }
        assertThat(send("GET", "projections", null, basic(ConsoleUsers.ADMIN, "wrong")).statusCode()).isEqualTo(401);
        // the document itself, which describes the operations and not itself
        HttpResponse<String> document = http.send(request("GET", "openapi.yaml", null, null),
                HttpResponse.BodyHandlers.ofString());
        assertThat(document.statusCode()).isEqualTo(200);
        assertThat(document.body()).startsWith("openapi: 3.1.0").contains("/projections/{name}/rebuilds:");
    }

    @Test
    void theInstancesListThisServerWithItsRoleOnceItsSweepReported() {
        Await.until("this server's sweep reported it", () -> unchecked(
                () -> send("GET", "instances", null, viewer()).body()).contains("\"self\":true"));
        String body = unchecked(() -> send("GET", "instances", null, viewer()).body());
        // an instance is a flat object but for its array of projections: the one that answered is this server
        Matcher self = Pattern.compile("\\{\"instance\":\"[^\"]*\",\"self\":true,[^{}]*}").matcher(body);
        assertThat(self.find()).as(body).isTrue();
        assertThat(self.group()).contains("\"state\":\"live\"").contains("\"role\":\"processing\"")
                .contains("\"" + PROJECTION + "\"");
        assertThat(body).as("this server processes what it deploys").contains("\"unprocessedProjections\":[]");
    }

    @Test
    void aRunbookPausesStartsARebuildOfOneTenantResumesAndWaitsForFinishedThroughTheApiAlone() throws Exception {
        String tenant = "api-runbook";
        createOrder(tenant, "runbook-1");
        createOrder(tenant, "runbook-2");
        long audited = TestSql.count("SELECT COALESCE(MAX(id), 0) FROM projection_audit");

        HttpResponse<String> paused = send("POST", "projections/" + PROJECTION + "/pause", "", admin());
        assertThat(paused.statusCode()).as(paused.body()).isEqualTo(200);
        assertThat(paused.body()).contains("\"state\":\"paused\"");
        try {
            HttpResponse<String> started = send("POST", "projections/" + PROJECTION + "/rebuilds",
                    "{\"tenant\": \"" + tenant + "\"}", admin());
            assertThat(started.statusCode()).as(started.body()).isEqualTo(201);
            String location = started.headers().firstValue("Location").orElseThrow();
            assertThat(location).startsWith("/projections/api/v1/rebuilds/");
            assertThat(started.body()).contains("\"state\":\"RUNNING\"").contains("\"tenant\":\"" + tenant + "\"")
                    .contains("\"startedBy\":\"admin\"");
            String run = location.substring(location.lastIndexOf('/') + 1);
            assertThat(send("GET", "rebuilds/" + run, null, viewer()).body()).as("paused: not stepped")
                    .contains("\"state\":\"RUNNING\"");
        } finally {
            HttpResponse<String> resumed = send("POST", "projections/" + PROJECTION + "/resume", "", admin());
            assertThat(resumed.statusCode()).as(resumed.body()).isEqualTo(200);
            assertThat(resumed.body()).contains("\"state\":\"running\"");
        }
        String run = latestRun(tenant);
        Await.until("run " + run + " finished", Duration.ofSeconds(90), () -> unchecked(() -> send("GET",
                "rebuilds/" + run, null, viewer()).body()).contains("\"state\":\"FINISHED\""));
        String finished = send("GET", "rebuilds/" + run, null, viewer()).body();
        assertThat(finished).contains("\"marked\":2").contains("\"remaining\":0").contains("\"partitionDetails\":[{");
        assertThat(send("GET", "projections", null, viewer()).body()).as("the latest run of any tenant")
                .contains("\"latestRebuild\":{\"id\":\"" + run + "\"");
        assertThat(TestSql.count("SELECT COUNT(*) FROM projection_audit WHERE id > ? AND user_name = 'admin'"
                + " AND projection = ? AND action IN ('pause', 'rebuild', 'resume')", audited, PROJECTION))
                .as("pause, rebuild and resume audited under the caller's name").isEqualTo(3);
        assertThat(TestSql.count("SELECT COUNT(*) FROM projection_audit WHERE id > ? AND action = 'rebuild'"
                + " AND tenant_id = ? AND detail LIKE ?", audited, tenant, "%" + run + "%")).isEqualTo(1);
    }

    @Test
    void aVerificationFindsExactlyTheRowsDamagedBehindTheEnginesBackAndTheDrainersRepairThem() throws Exception {
        String tenant = "api-verify";
        for (int i = 1; i <= 4; i++) {
            createOrder(tenant, "verify-" + i);
        }
        Await.until("the four orders refreshed", Duration.ofSeconds(60), () -> rows("order_search", tenant) == 4
                && rows("customer_stats", tenant) == 4
                && TestSql.count("SELECT COUNT(*) FROM projection_pending WHERE tenant_id = ?", tenant) == 0);
        long first = order(tenant, 0);
        long audited = TestSql.count("SELECT COALESCE(MAX(id), 0) FROM projection_audit");
        // behind the engine's back, no mark for any of it: a row changed, a row deleted, a source changed in bulk SQL
        TestSql.execute("UPDATE order_search SET total = total + 1 WHERE order_id = " + first);
        TestSql.execute("DELETE FROM order_search WHERE order_id = " + order(tenant, 1));
        TestSql.execute("UPDATE orders SET status = 'PAID' WHERE id = " + order(tenant, 2));
        TestSql.execute("UPDATE customer_stats SET order_count = 7 WHERE customer_id = "
                + TestSql.count("SELECT customer_id FROM orders WHERE id = ?", first));
        // and rows whose source never existed, found through the read model's own ids (a verification's extra partition)
        long ghost = 2_000_000_000L + first;
        TestSql.execute("INSERT INTO order_search (order_id, tenant_id, customer_name, status, line_count, total,"
                + " source_version) VALUES (" + ghost + ", '" + tenant + "', 'ghost', 'NEW', 0, 0, 0)");
        TestSql.execute("INSERT INTO customer_stats (customer_id, tenant_id, customer_name, order_count, total_amount)"
                + " VALUES (" + ghost + ", '" + tenant + "', 'ghost', 0, 0)");

        HttpResponse<String> started = send("POST", "projections/order-search/verifications",
                "{\"tenant\": \"" + tenant + "\"}", admin());
        assertThat(started.statusCode()).as(started.body()).isEqualTo(201);
        String location = started.headers().firstValue("Location").orElseThrow();
        assertThat(location).startsWith("/projections/api/v1/verifications/");
        assertThat(started.body()).contains("\"startedBy\":\"admin\"").contains("\"tenant\":\"" + tenant + "\"");
        String run = location.substring(location.lastIndexOf('/') + 1);
        // 4 orders, then the read model's 4 rows (one deleted, the ghost added)
        assertThat(finished(run)).contains("\"checked\":8").contains("\"drifted\":4").contains("\"repaired\":4")
                .contains("\"failing\":0");
        assertThat(send("GET", "rebuilds/" + run, null, viewer()).body()).as("among the projection's runs")
                .contains("\"kind\":\"VERIFY\"");
        assertThat(finished(verify("order-search", tenant))).as("repaired: nothing differs any more")
                .contains("\"checked\":8").contains("\"drifted\":0");
        assertThat(TestSql.count("SELECT COUNT(*) FROM order_search WHERE order_id = ?", ghost)).as("ghost deleted")
                .isZero();
        assertThat(TestSql.count("SELECT COUNT(*) FROM order_search s JOIN orders o ON o.id = s.order_id"
                + " WHERE s.tenant_id = ? AND s.status = o.status AND s.total = 2.50", tenant)).isEqualTo(4);

        assertThat(finished(verify("customer-stats", tenant))).contains("\"checked\":9").contains("\"drifted\":2")
                .contains("\"repaired\":2");
        assertThat(TestSql.count("SELECT COUNT(*) FROM customer_stats WHERE customer_id = ?", ghost)).isZero();
        assertThat(TestSql.count("SELECT COUNT(*) FROM projection_audit WHERE id > ? AND user_name = 'admin'"
                + " AND action = 'verify' AND tenant_id = ?", audited, tenant)).isEqualTo(3);
    }

    @Test
    void aVerificationAndARebuildOfOneProjectionAndTenantExcludeEachOther() throws Exception {
        String tenant = "api-verify-exclusive";
        createOrder(tenant, "exclusive-1");
        assertThat(send("POST", "projections/" + PROJECTION + "/pause", "", admin()).statusCode()).isEqualTo(200);
        try {
            String run = verify(PROJECTION, tenant);
            HttpResponse<String> rebuild = send("POST", "projections/" + PROJECTION + "/rebuilds",
                    "{\"tenant\": \"" + tenant + "\"}", admin());
            assertThat(rebuild.statusCode()).as(rebuild.body()).isEqualTo(409);
            assertThat(rebuild.body()).contains(run);
            HttpResponse<String> cancelled = send("POST", "verifications/" + run + "/cancel", "", admin());
            assertThat(cancelled.statusCode()).as(cancelled.body()).isEqualTo(200);
            assertThat(cancelled.body()).contains("\"state\":\"CANCELLED\"").contains("\"cancelledBy\":\"admin\"")
                    .as("its unrefreshed marks deleted: how many were repaired is not known").contains("\"repaired\":null");
            assertThat(send("GET", "verifications/" + aRebuildRunOf(tenant), null, viewer()).statusCode())
                    .as("a rebuild is no verification").isEqualTo(404);
        } finally {
            assertThat(send("POST", "projections/" + PROJECTION + "/resume", "", admin()).statusCode()).isEqualTo(200);
        }
    }

    /** Starts a verification of one tenant through the API; its run id. */
    private String verify(String projection, String tenant) throws Exception {
        HttpResponse<String> started = send("POST", "projections/" + projection + "/verifications",
                "{\"tenant\": \"" + tenant + "\"}", admin());
        assertThat(started.statusCode()).as(started.body()).isEqualTo(201);
        String location = started.headers().firstValue("Location").orElseThrow();
        return location.substring(location.lastIndexOf('/') + 1);
    }

    /** The verification once FINISHED, as the API shows it. */
    private String finished(String run) {
        Await.until("verification " + run + " finished", Duration.ofSeconds(90), () -> unchecked(() -> send("GET",
                "verifications/" + run, null, viewer()).body()).contains("\"state\":\"FINISHED\""));
        return unchecked(() -> send("GET", "verifications/" + run, null, viewer()).body());
    }

    /** A rebuild of customer-stats for {@code tenant}, started for the test; its run id. */
    private String aRebuildRunOf(String tenant) throws Exception {
        HttpResponse<String> started = send("POST", "projections/customer-stats/rebuilds",
                "{\"tenant\": \"" + tenant + "\"}", admin());
        assertThat(started.statusCode()).as(started.body()).isEqualTo(201);
        String location = started.headers().firstValue("Location").orElseThrow();
        return location.substring(location.lastIndexOf('/') + 1);
    }

    /** The id of the tenant's {@code n}th order, in the order of ids. */
    private static long order(String tenant, int n) {
        return TestSql.count("SELECT id FROM orders WHERE tenant_id = ? ORDER BY id LIMIT 1 OFFSET " + n, tenant);
    }

    private static long rows(String table, String tenant) {
        return TestSql.count("SELECT COUNT(*) FROM " + table + " WHERE tenant_id = ?", tenant);
    }

    private String latestRun(String tenant) throws Exception {
        String rebuilds = send("GET", "projections/" + PROJECTION + "/rebuilds", null, viewer()).body();
        Matcher run = Pattern.compile("\"id\":\"([^\"]+)\",\"projection\":\"" + PROJECTION + "\",\"tenant\":\""
                + tenant + "\"").matcher(rebuilds);
        assertThat(run.find()).as(rebuilds).isTrue();
        return run.group(1);
    }

    @Test
    void marksArePagedByKeysetAndRetriedResumedAndSkippedWithTheCountCheckAndTheirAudit() throws Exception {
        String tenant = "api-marks";
        // order ids that exist nowhere: the marks this test makes due again are refreshed (to nothing) and acked, and
        // leave no failing refreshes behind to suspend order-search in the classes that follow on this database
        for (int i = 1; i <= 3; i++) {
            insertParked(tenant, "9000000" + i, "api fault A " + i);
        }
        insertParked(tenant, "90000004", "api fault B");
        insertFailing(tenant, "90000011");
        insertFailing(tenant, "90000012");
        long audited = TestSql.count("SELECT COALESCE(MAX(id), 0) FROM projection_audit");
        String marks = "projections/" + PROJECTION + "/marks";

        HttpResponse<String> first = send("GET", marks + "?state=parked&tenant=" + tenant + "&limit=3", null, viewer());
        assertThat(first.statusCode()).as(first.body()).isEqualTo(200);
        assertThat(ids(first.body())).hasSize(3);
        Matcher next = Pattern.compile("\"next\":\"([^\"]+)\"").matcher(first.body());
        assertThat(next.find()).as(first.body()).isTrue();
        String nextPath = next.group(1).substring("/projections/api/v1/".length());
        HttpResponse<String> second = send("GET", nextPath, null, viewer());
        assertThat(ids(second.body())).hasSize(1).doesNotContainAnyElementsOf(ids(first.body()));
        assertThat(second.body()).contains("\"next\":null");
        assertThat(send("GET", marks + "?state=failing&tenant=" + tenant, null, viewer()).body())
                .contains("\"id\":\"90000011\"").contains("\"id\":\"90000012\"").doesNotContain("\"id\":\"90000001\"");

        HttpResponse<String> stale = send("POST", marks + "/resume", "{\"tenant\":\"" + tenant
                + "\",\"error\":\"api fault A\",\"expected\":2}", admin());
        assertThat(stale.statusCode()).as(stale.body()).isEqualTo(409);
        assertThat(stale.body()).contains("holds 3 marks, not the 2 expected");
        assertThat(parked(tenant)).as("nothing done on a changed count").isEqualTo(4);

        HttpResponse<String> resumed = send("POST", marks + "/resume", "{\"tenant\":\"" + tenant
                + "\",\"error\":\"api fault A\",\"expected\":3}", admin());
        assertThat(resumed.body()).isEqualTo("{\"resumed\":3}");
        HttpResponse<String> skipped = send("POST", marks + "/skip", "{\"tenant\":\"" + tenant + "\",\"id\":\"90000004\"}",
                admin());
        assertThat(skipped.body()).isEqualTo("{\"skipped\":1}");
        assertThat(parked(tenant)).isZero();
        // the resumed marks keep their attempts, so they count as failing too until refreshed: narrowed by error
        HttpResponse<String> retried = send("POST", marks + "/retry", "{\"tenant\":\"" + tenant
                + "\",\"error\":\"api fault C\",\"expected\":2}", admin());
        assertThat(retried.body()).isEqualTo("{\"retried\":2}");
        HttpResponse<String> gone = send("POST", marks + "/retry", "{\"tenant\":\"" + tenant + "\",\"id\":\"90000004\"}",
                admin());
        assertThat(gone.statusCode()).as(gone.body()).isEqualTo(404);
        assertThat(gone.body()).contains("no failing mark");

        assertThat(TestSql.count("SELECT COUNT(*) FROM projection_audit WHERE id > ? AND user_name = 'admin'"
                + " AND action = 'resume-parked' AND detail LIKE '3 marks with error \"api fault A%'", audited)).isEqualTo(1);
        assertThat(TestSql.count("SELECT COUNT(*) FROM projection_audit WHERE id > ? AND user_name = 'admin'"
                + " AND action = 'skip-parked' AND entity_id = '90000004' AND detail LIKE '%api fault B'", audited)).isEqualTo(1);
        assertThat(TestSql.count("SELECT COUNT(*) FROM projection_audit WHERE id > ? AND user_name = 'admin'"
                + " AND action = 'retry-failed' AND tenant_id = ? AND detail LIKE '2 marks with error \"api fault C%'", audited,
                tenant)).isEqualTo(1);
    }

    @Test
    void badJsonAndBadValuesAreAnsweredWithProblemsNamingThemAndNothingElse() throws Exception {
        String rebuilds = "projections/" + PROJECTION + "/rebuilds";
        Map<String, String> bodies = Map.of(
                "{\"tenant\": ", "the body is not JSON",
                "[1, 2]", "the body must be a JSON object, was an array",
                "{\"tennant\": \"acme\"}", "unknown field [tennant]",
                "{\"partitions\": \"two\"}", "\"partitions\" must be a whole number, was a string \"two\"",
                "{\"partitions\": 0}", "\"partitions\" must be 1 or more, was 0",
                "{\"partitions\": 65}", "partitions must be 1..64, was 65",
                "{\"scope\": {\"changedSince\": \"yesterday\"}}", "\"changedSince\" must be an ISO-8601 instant",
                "{\"scope\": {\"filter\": \"no-equals\"}}", "a rebuild filter reads name=value, was \"no-equals\"",
                "{\"scope\": {\"since\": \"2026-01-01T00:00:00Z\"}}", "in \"scope\": unknown field [since]");
        for (Map.Entry<String, String> bad : bodies.entrySet()) {
            HttpResponse<String> answer = sendAnyway("POST", rebuilds, bad.getKey(), admin());
            assertThat(answer.statusCode()).as(bad.getKey() + " → " + answer.body()).isEqualTo(400);
            assertProblem(answer, bad.getValue());
        }
        for (String action : List.of("retry", "resume", "skip")) {
            HttpResponse<String> badSelection = sendAnyway("POST", "projections/" + PROJECTION + "/marks/" + action,
                    "{\"expected\": -1}", admin());
            assertThat(badSelection.statusCode()).as(action + " → " + badSelection.body()).isEqualTo(400);
            assertProblem(badSelection, "\"expected\" must be 0..");
        }
        assertProblem(send("GET", "projections/no-such", null, viewer()), "unknown projection \"no-such\"; known");
        assertProblem(send("GET", "rebuilds/no-such-run", null, viewer()), "no rebuild run \"no-such-run\"");
        assertProblem(sendAnyway("GET", "projections/" + PROJECTION + "/marks?state=stuck", null, viewer()),
                "\"state\" must be failing, parked or pending, was \"stuck\"");
        assertProblem(sendAnyway("GET", "projections/" + PROJECTION + "/marks?limit=0", null, viewer()),
                "\"limit\" must be 1..500, was \"0\"");
        assertProblem(send("GET", "projections/" + PROJECTION + "/marks?after=made-up", null, viewer()),
                "\"after\" is not a position this API wrote");
        assertProblem(sendAnyway("GET", "nothing/here", null, viewer()), "no endpoint /nothing/here");
        HttpResponse<String> wrongMethod = sendAnyway("DELETE", "projections/" + PROJECTION, null, admin());
        assertThat(wrongMethod.statusCode()).isEqualTo(405);
        assertThat(wrongMethod.headers().firstValue("Allow")).hasValue("GET");
        HttpResponse<String> form = exchange(HttpRequest.newBuilder(URI.create(API + rebuilds))
                .header("Authorization", admin()).header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("tenant=acme")).build(), "tenant=acme", false);
        assertThat(form.statusCode()).isEqualTo(415);
        assertThat(TestSql.count("SELECT COUNT(*) FROM projection_rebuild WHERE tenant_id = 'acme'"))
                .as("no bad request started a run").isZero();
    }

    private static void assertProblem(HttpResponse<String> answer, String detail) {
        assertThat(answer.headers().firstValue("Content-Type")).hasValue("application/problem+json;charset=UTF-8");
        // the detail as it reads once the JSON string is unescaped
        assertThat(answer.body().replace("\\\"", "\"")).as(answer.body()).contains("\"status\":" + answer.statusCode())
                .contains(detail)
                .doesNotContain("Exception").doesNotContain("dev.projections").doesNotContain("\tat ");
    }

    @Test
    void aPostCarryingOnlyTheConsoleSessionCookieIsRefusedAndActsOnNothing() throws Exception {
        ConsoleHttp console = new ConsoleHttp();
        console.logIn(ConsoleUsers.ADMIN, ConsoleUsers.ADMIN_PASSWORD);
        long audited = TestSql.count("SELECT COALESCE(MAX(id), 0) FROM projection_audit");
        HttpResponse<String> forged = console.postJson("api/v1/projections/" + PROJECTION + "/pause", "{}");
        assertThat(forged.statusCode()).as(forged.body()).isEqualTo(401);
        assertThat(forged.body()).contains("a console session is not accepted");
        CONTRACT.assertAnswer("POST", URI.create(API + "projections/" + PROJECTION + "/pause"), forged);
        assertThat(send("GET", "projections/" + PROJECTION, null, viewer()).body()).contains("\"state\":\"running\"");
        assertThat(TestSql.count("SELECT COUNT(*) FROM projection_audit WHERE id > ?", audited)).isZero();
    }

    @Test
    void aBrowsersCrossSiteOrFormPostIsRefusedEvenWithTheAdminsBasicCredentials() throws Exception {
        // a browser once given the credentials sends them by itself: what it marks cross-site, or any form, cannot act
        long audited = TestSql.count("SELECT COALESCE(MAX(id), 0) FROM projection_audit");
        String pause = API + "projections/" + PROJECTION + "/pause";
        HttpResponse<String> otherOrigin = exchange(HttpRequest.newBuilder(URI.create(pause))
                .header("Authorization", admin()).header("Origin", "https://attacker.example")
                .POST(HttpRequest.BodyPublishers.noBody()).build(), null, true);
        assertThat(otherOrigin.statusCode()).as(otherOrigin.body()).isEqualTo(403);
        assertProblem(otherOrigin, "a request from another origin cannot act");
        HttpResponse<String> crossSite = exchange(HttpRequest.newBuilder(URI.create(pause))
                .header("Authorization", admin()).header("Sec-Fetch-Site", "cross-site")
                .POST(HttpRequest.BodyPublishers.noBody()).build(), null, true);
        assertThat(crossSite.statusCode()).as(crossSite.body()).isEqualTo(403);
        HttpResponse<String> emptyForm = exchange(HttpRequest.newBuilder(URI.create(API + "projections/" + PROJECTION
                        + "/marks/skip")).header("Authorization", admin()).header("Content-Type", "text/plain")
                .POST(HttpRequest.BodyPublishers.noBody()).build(), null, false);
        assertThat(emptyForm.statusCode()).as("an empty text/plain form, which would skip every parked mark")
                .isEqualTo(415);
        assertThat(send("GET", "projections/" + PROJECTION, null, viewer()).body()).contains("\"state\":\"running\"");
        assertThat(TestSql.count("SELECT COUNT(*) FROM projection_audit WHERE id > ?", audited)).isZero();
        HttpResponse<String> sameOrigin = exchange(HttpRequest.newBuilder(URI.create(API + "projections/" + PROJECTION
                        + "/marks/retry")).header("Authorization", admin()).header("Origin", "http://127.0.0.1:8080")
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString("{\"tenant\": \"none-here\"}"))
                .build(), "{\"tenant\": \"none-here\"}", true);
        assertThat(sameOrigin.body()).as("its own origin acts").isEqualTo("{\"retried\":0}");
    }

    @Test
    void wrongPasswordsFromOneAddressSlowThatAddressOnlyAndTheRightOneWorksFromAnother() throws Exception {
        // loopback: the burst comes from 127.0.0.2, the admin from 127.0.0.1 (the server listens on 127.0.0.1)
        for (int i = 0; i < 5; i++) {
            assertThat(rawGet("127.0.0.2", basic("nobody", "guess-" + i))).startsWith("HTTP/1.1 401");
        }
        String slowed = rawGet("127.0.0.2", admin());
        assertThat(slowed).as("the right password from the bursting address waits too").startsWith("HTTP/1.1 429")
                .containsIgnoringCase("Retry-After: ").contains("too many failed logins from this address");
        assertThat(rawGet("127.0.0.1", admin())).as("another address is not slowed").startsWith("HTTP/1.1 200");
        assertThat(send("GET", "projections", null, viewer()).statusCode()).isEqualTo(200);
        Await.until("the bursting address's delay passed", Duration.ofSeconds(10),
                () -> rawGet("127.0.0.2", admin()).startsWith("HTTP/1.1 200"));
    }

    /** A GET of the projection list from {@code localAddress}; its answer is held to the OpenAPI document too. */
    private static String rawGet(String localAddress, String authorization) {
        return CONTRACT.assertRawAnswer("GET", URI.create(API + "projections"), LoopbackClient.send(localAddress,
                "GET /projections/api/v1/projections HTTP/1.1\r\nAuthorization: " + authorization + "\r\n", ""));
    }

    private static String unchecked(java.util.concurrent.Callable<String> call) {
        try {
            return call.call();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static List<String> ids(String body) {
        Matcher id = Pattern.compile("\"id\":\"([^\"]+)\"").matcher(body);
        List<String> ids = new java.util.ArrayList<>();
        while (id.find()) {
            ids.add(id.group(1));
        }
        return ids;
    }

    private static long parked(String tenant) {
        return TestSql.count("SELECT COUNT(*) FROM projection_pending WHERE projection = ? AND tenant_id = ?"
                + " AND parked_at IS NOT NULL", PROJECTION, tenant);
    }

    /** A mark parked after 3 attempts with {@code error}, as the engine leaves one. */
    private static void insertParked(String tenant, String id, String error) {
        TestSql.execute("INSERT INTO projection_pending (projection, tenant_id, entity_id, generation, mark_count,"
                + " priority, attempts, available_at, first_marked_at, last_failed_at, last_error, parked_at,"
                + " parked_generation) VALUES ('" + PROJECTION + "', '" + tenant + "', '" + id + "', 'g-" + id
                + "', 1, 0, 3, TIMESTAMP '9999-12-31 00:00:00', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, '" + error
                + "', CURRENT_TIMESTAMP, 'g-" + id + "')");
    }

    /** A mark failing twice, due again in a day: the engine leaves it alone during the test. */
    private static void insertFailing(String tenant, String id) {
        TestSql.execute("INSERT INTO projection_pending (projection, tenant_id, entity_id, generation, mark_count,"
                + " priority, attempts, available_at, first_marked_at, last_failed_at, last_error) VALUES ('"
                + PROJECTION + "', '" + tenant + "', '" + id + "', 'g-" + id + "', 1, 0, 2,"
                + " TIMESTAMP '2999-01-01 00:00:00', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, 'api fault C')");
    }

    /** A request as the OpenAPI document describes it, its answer checked against the document too. */
    private HttpResponse<String> send(String method, String path, String body, String authorization)
            throws Exception {
        return exchange(request(method, path, body, authorization), body, true);
    }

    /** A request the test means to be wrong (no credentials, a bad value): only its answer is held to the document. */
    private HttpResponse<String> sendAnyway(String method, String path, String body, String authorization)
            throws Exception {
        return exchange(request(method, path, body, authorization), body, false);
    }

    private static HttpRequest request(String method, String path, String body, String authorization) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(API + path))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body));
        if (body != null && !body.isEmpty()) {
            request.header("Content-Type", "application/json");
        }
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        return request.build();
    }

    private HttpResponse<String> exchange(HttpRequest request, String body, boolean onContract) throws Exception {
        return CONTRACT.exchange(http, request, body, onContract);
    }

    private void createOrder(String tenant, String customer) throws Exception {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(DEMO + "/orders"))
                .header("Content-Type", "application/json").header("X-Tenant", tenant)
                .POST(HttpRequest.BodyPublishers.ofString("{\"customer\":\"" + customer
                        + "\",\"lines\":[{\"sku\":\"a\",\"quantity\":1,\"price\":2.5}]}")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isBetween(200, 201);
    }

    private static String admin() {
        return basic(ConsoleUsers.ADMIN, ConsoleUsers.ADMIN_PASSWORD);
    }

    private static String viewer() {
        return basic(ConsoleUsers.VIEWER, ConsoleUsers.VIEWER_PASSWORD);
    }

    private static String basic(String user, String password) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }
}
