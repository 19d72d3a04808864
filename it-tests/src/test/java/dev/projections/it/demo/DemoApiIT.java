package dev.projections.it.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.it.support.Await;
import dev.projections.it.support.TestSql;
import dev.projections.it.support.Deployments;
import dev.projections.testsupport.TestDatabase;
import java.math.BigDecimal;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The demo's JSON API over HTTP: each operation, and the read models following it; bad input writes nothing. */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class DemoApiIT {

    private static final String API = "http://127.0.0.1:8080/demo/api";
    private static final Pattern ID = Pattern.compile("\"id\":(\\d+)");

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @Deployment(testable = false)
    static EnterpriseArchive deployment() {
        return Deployments.ear(Map.of());
    }

    @Test
    void eachOperationRoundTripsAndTheReadModelsFollow() throws Exception {
        String alice = "alice-" + UUID.randomUUID();
        String bob = "bob-" + UUID.randomUUID();
        HttpResponse<String> created = send("POST", "/orders",
                "{\"customer\":\"" + alice + "\",\"lines\":[{\"sku\":\"a\",\"quantity\":2,\"price\":9.5}]}");
        assertThat(created.statusCode()).isEqualTo(201);
        long id = idOf(created.body());
        awaitRow("SELECT total FROM order_search WHERE order_id = ?", id, new BigDecimal("19.00"));

        assertThat(send("PUT", "/orders/" + id + "/status", "{\"status\":\"PAID\"}").statusCode()).isEqualTo(200);
        awaitRow("SELECT status FROM order_search WHERE order_id = ?", id, "PAID");

        assertThat(send("POST", "/orders/" + id + "/lines", "{\"sku\":\"b\",\"quantity\":1,\"price\":3}").statusCode())
                .isEqualTo(201);
        awaitRow("SELECT total FROM order_search WHERE order_id = ?", id, new BigDecimal("22.00"));
        awaitRow("SELECT total_amount FROM customer_stats WHERE customer_name = ?", alice, new BigDecimal("22.00"));

        assertThat(send("PUT", "/orders/" + id + "/customer", "{\"customer\":\"" + bob + "\"}").statusCode())
                .isEqualTo(200);
        awaitRow("SELECT order_count FROM customer_stats WHERE customer_name = ?", bob, 1);
        awaitRow("SELECT order_count FROM customer_stats WHERE customer_name = ?", alice, 0);
        awaitRow("SELECT customer_name FROM order_search WHERE order_id = ?", id, bob);

        HttpResponse<String> search = send("GET", "/search/orders/" + id, null);
        assertThat(search.statusCode()).isEqualTo(200);
        assertThat(search.body()).contains("\"customerName\":\"" + bob + "\"");

        assertThat(send("DELETE", "/orders/" + id, null).statusCode()).isEqualTo(204);
        Await.until("order_search row of deleted order " + id + " removed",
                () -> query("SELECT 1 FROM order_search WHERE order_id = ?", id).isEmpty());
        assertThat(send("GET", "/search/orders/" + id, null).statusCode()).isEqualTo(404);

        HttpResponse<String> load = send("POST", "/load?orders=5&updates=3", null);
        assertThat(load.statusCode()).isEqualTo(200);
        assertThat(load.body()).contains("\"orders\":5").contains("\"updates\":3");

        HttpResponse<String> fault = send("POST", "/faults/order-search?failNext=0", null);
        assertThat(fault.statusCode()).isEqualTo(200);
    }

    @Test
    void aDelayedProjectionIsStillRefreshedEachKeyTakingAtLeastTheDelayUntilItIsLifted() throws Exception {
        assertThat(send("POST", "/faults/customer-stats?delay=300ms", null).body()).contains("\"delay\":\"300ms\"");
        try {
            String customer = "slow-" + UUID.randomUUID();
            HttpResponse<String> created = send("POST", "/orders", "{\"customer\":\"" + customer
                    + "\",\"lines\":[{\"sku\":\"a\",\"quantity\":2,\"price\":3}]}");
            assertThat(created.statusCode()).isEqualTo(201);
            awaitRow("SELECT total_amount FROM customer_stats WHERE customer_name = ?", customer, new BigDecimal("6.00"));
            // a sleep never ends early: the slowest customer-stats refresh of the last minutes took the delay at least
            Pattern slowest = Pattern.compile("projection_refresh_seconds_max\\{outcome=\"success\","
                    + "projection=\"customer-stats\"[^}]*} ([0-9.Ee-]+)");
            Matcher max = slowest.matcher(metrics());
            assertThat(max.find()).as("customer-stats' refresh timer").isTrue();
            assertThat(Double.parseDouble(max.group(1))).isGreaterThanOrEqualTo(0.3);
        } finally {
            assertThat(send("POST", "/faults/customer-stats?delay=0", null).body()).contains("\"delay\":\"0\"");
        }
    }

    /**
     * Read your writes (docs/contract.md §14) with customer-stats 300 ms slow a key: with {@code X-Await-Refresh} every
     * write is answered once both read models show it, and an immediate read-back sees it; without the header, an
     * immediate read-back of the slow one does not.
     */
    @Test
    void withTheAwaitHeaderAWriteIsAnsweredOnceBothReadModelsShowIt() throws Exception {
        assertThat(send("POST", "/faults/customer-stats?delay=300ms", null).statusCode()).isEqualTo(200);
        try {
            for (int i = 0; i < 3; i++) {
                String customer = "awaited-" + UUID.randomUUID();
                HttpResponse<String> created = send("POST", "/orders", "{\"customer\":\"" + customer
                        + "\",\"lines\":[{\"sku\":\"a\",\"quantity\":2,\"price\":3}]}", null, "10s");
                assertThat(created.statusCode()).isEqualTo(201);
                assertThat(created.headers().firstValue("X-Projections-Refreshed")).hasValue("true");
                long id = idOf(created.body());
                assertThat(send("GET", "/search/orders/" + id, null).body()).contains("\"customerName\":\"" + customer);
                assertThat(send("GET", "/stats/customers/" + customer, null).body()).contains("\"orderCount\":1");

                HttpResponse<String> paid = send("PUT", "/orders/" + id + "/status", "{\"status\":\"PAID\"}", null, "10s");
                assertThat(paid.headers().firstValue("X-Projections-Refreshed")).hasValue("true");
                assertThat(send("GET", "/search/orders/" + id, null).body()).contains("\"status\":\"PAID\"");
            }
            int notYet = 0;
            for (int i = 0; i < 3; i++) {
                String customer = "not-awaited-" + UUID.randomUUID();
                HttpResponse<String> created = send("POST", "/orders", "{\"customer\":\"" + customer
                        + "\",\"lines\":[{\"sku\":\"a\",\"quantity\":2,\"price\":3}]}");
                assertThat(created.headers().firstValue("X-Projections-Refreshed")).as("not asked").isEmpty();
                if (send("GET", "/stats/customers/" + customer, null).statusCode() == 404) {
                    notYet++;
                }
                awaitRow("SELECT order_count FROM customer_stats WHERE customer_name = ?", customer, 1);
            }
            assertThat(notYet).as("read-backs that did not see the write yet, of 3").isGreaterThanOrEqualTo(2);
        } finally {
            assertThat(send("POST", "/faults/customer-stats?delay=0", null).statusCode()).isEqualTo(200);
        }
    }

    @Test
    void aWaitShorterThanTheRefreshIsAnsweredFalseAndCountedAndABadValueIsRefusedNamingIt() throws Exception {
        double timedOutBefore = awaitCount("timed_out");
        assertThat(send("POST", "/faults/customer-stats?delay=500ms", null).statusCode()).isEqualTo(200);
        try {
            String customer = "impatient-" + UUID.randomUUID();
            HttpResponse<String> created = send("POST", "/orders", "{\"customer\":\"" + customer
                    + "\",\"lines\":[{\"sku\":\"a\",\"quantity\":1,\"price\":3}]}", null, "100ms");

            assertThat(created.statusCode()).as("a timeout never fails the request").isEqualTo(201);
            assertThat(created.headers().firstValue("X-Projections-Refreshed")).hasValue("false");
            assertThat(awaitCount("timed_out")).isEqualTo(timedOutBefore + 1);
            awaitRow("SELECT order_count FROM customer_stats WHERE customer_name = ?", customer, 1);
        } finally {
            assertThat(send("POST", "/faults/customer-stats?delay=0", null).statusCode()).isEqualTo(200);
        }

        String refused = "refused-" + UUID.randomUUID();
        HttpResponse<String> bad = send("POST", "/orders", "{\"customer\":\"" + refused
                + "\",\"lines\":[{\"sku\":\"a\",\"quantity\":1,\"price\":3}]}", null, "soon");
        assertThat(bad.statusCode()).isEqualTo(400);
        assertThat(bad.body()).contains("X-Await-Refresh").contains("\\\"soon\\\"");
        assertNoInternalNames(bad);
        assertThat(query("SELECT 1 FROM customer WHERE name = ?", refused)).as("nothing written").isEmpty();
    }

    @Test
    void theTestSupportEndpointsAreNotServedUnlessSwitchedOn() throws Exception {
        HttpResponse<String> idle = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build().send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:8080/projections/test/idle")).POST(HttpRequest.BodyPublishers.noBody())
                .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(idle.statusCode()).as("projection.test-support is off in the demo").isEqualTo(404);
    }

    private static double awaitCount(String result) throws Exception {
        Matcher count = Pattern.compile("projection_await_seconds_count\\{result=\"" + result + "\"[^}]*} ([0-9.Ee+-]+)")
                .matcher(metrics());
        assertThat(count.find()).as("projection.await{result=%s}", result).isTrue();
        return Double.parseDouble(count.group(1));
    }

    private static String metrics() throws Exception {
        return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:8080/projections/metrics")).build(), HttpResponse.BodyHandlers.ofString()).body();
    }

    @Test
    void anOrderOfATenantIsMarkedAndRefreshedAsThatTenantAndHiddenFromOthers() throws Exception {
        String customer = "tenant-customer-" + UUID.randomUUID();
        HttpResponse<String> created = send("POST", "/orders", "{\"customer\":\"" + customer
                + "\",\"lines\":[{\"sku\":\"a\",\"quantity\":1,\"price\":4}]}", "acme");
        assertThat(created.statusCode()).isEqualTo(201);
        long id = idOf(created.body());
        awaitRow("SELECT tenant_id FROM order_search WHERE order_id = ?", id, "acme");
        awaitRow("SELECT tenant_id FROM customer_stats WHERE customer_name = ?", customer, "acme");
        assertThat(send("PUT", "/orders/" + id + "/status", "{\"status\":\"PAID\"}", "other").statusCode())
                .as("another tenant's order").isEqualTo(404);
        assertThat(send("PUT", "/orders/" + id + "/status", "{\"status\":\"PAID\"}", "acme").statusCode())
                .isEqualTo(200);
        awaitRow("SELECT status FROM order_search WHERE order_id = ?", id, "PAID");
    }

    @Test
    void badRequestsAnswerWithAJsonErrorAndWriteNothing() throws Exception {
        long orders = count("SELECT COUNT(*) FROM orders");
        long lines = count("SELECT COUNT(*) FROM order_line");
        List<HttpResponse<String>> refused = new ArrayList<>();
        refused.add(send("POST", "/orders", "{not json"));
        refused.add(send("POST", "/orders", "{\"customer\":\"x\",\"lines\":[{\"sku\":\"a\",\"quantity\":-1,\"price\":1}]}"));
        refused.add(send("POST", "/orders", "{\"customer\":\"\",\"lines\":[]}"));
        refused.add(send("POST", "/orders/1/lines", "{\"sku\":\"a\",\"quantity\":1,\"price\":-2}"));
        refused.add(send("POST", "/faults/no-such-projection?failNext=1", null));
        for (HttpResponse<String> response : refused) {
            assertThat(response.statusCode()).as(response.body()).isEqualTo(400);
            assertThat(response.body()).startsWith("{\"error\":");
        }
        HttpResponse<String> unknown = send("PUT", "/orders/999999999/status", "{\"status\":\"PAID\"}");
        assertThat(unknown.statusCode()).isEqualTo(404);
        assertThat(unknown.body()).contains("no order 999999999");
        assertThat(count("SELECT COUNT(*) FROM orders")).isEqualTo(orders);
        assertThat(count("SELECT COUNT(*) FROM order_line")).isEqualTo(lines);
    }

    @Test
    void anOrdersReadModelIsReadOnlyInItsOwnTenant() throws Exception {
        HttpResponse<String> created = send("POST", "/orders", "{\"customer\":\"iso-" + UUID.randomUUID()
                + "\",\"lines\":[{\"sku\":\"a\",\"quantity\":1,\"price\":7}]}", "acme");
        long id = idOf(created.body());
        awaitRow("SELECT tenant_id FROM order_search WHERE order_id = ?", id, "acme");

        assertThat(send("GET", "/search/orders/" + id, null, "acme").statusCode()).isEqualTo(200);
        assertThat(send("GET", "/search/orders/" + id, null, "other").statusCode()).as("another tenant").isEqualTo(404);
        HttpResponse<String> none = send("GET", "/search/orders/" + id, null);
        assertThat(none.statusCode()).as("no tenant").isEqualTo(404);
        assertThat(none.body()).doesNotContain("acme");
    }

    @Test
    void numbersTheModelCannotHoldAndBadParametersAreRefusedNamingTheFieldWithoutInternalNames() throws Exception {
        long orders = count("SELECT COUNT(*) FROM orders");
        long lines = count("SELECT COUNT(*) FROM order_line");
        Map<String, HttpResponse<String>> refused = new java.util.LinkedHashMap<>();
        for (String quantity : List.of("4294967297", "-4294967295", "1e30", "1.5", "\"abc\"")) {
            refused.put("quantity", send("POST", "/orders", "{\"customer\":\"n\",\"lines\":[{\"sku\":\"a\",\"quantity\":"
                    + quantity + ",\"price\":1}]}"));
            assertBadRequestNaming(refused.get("quantity"), "quantity");
        }
        for (String price : List.of("1e400", "12345678901.00", "1.005")) {
            assertBadRequestNaming(send("POST", "/orders", "{\"customer\":\"n\",\"lines\":[{\"sku\":\"a\",\"quantity\":1,"
                    + "\"price\":" + price + "}]}"), "price");
        }
        assertBadRequestNaming(send("POST", "/orders", "{\"customer\":\"n\",\"lines\":[]}", "t".repeat(65)), "64");
        assertBadRequestNaming(send("POST", "/load?orders=abc", null), "orders");
        assertBadRequestNaming(send("POST", "/load?orders=1&updates=99999999999", null), "updates");
        assertBadRequestNaming(send("POST", "/faults/order-search?failNext=abc", null), "failNext");
        assertBadRequestNaming(send("POST", "/faults/order-search?failNext=1&nonRetryable=maybe", null), "nonRetryable");
        assertBadRequestNaming(send("POST", "/faults/order-search?failAll=maybe", null), "failAll");
        assertBadRequestNaming(send("POST", "/faults/order-search?delay=soon", null), "delay");
        assertBadRequestNaming(send("POST", "/faults/order-search?delay=1s", null), "delay");
        assertBadRequestNaming(send("PUT", "/orders/abc/status", "{\"status\":\"PAID\"}"), "order id");
        assertBadRequestNaming(send("GET", "/search/orders/abc", null), "order id");

        HttpRequest noContentType = HttpRequest.newBuilder(URI.create(API + "/orders"))
                .POST(HttpRequest.BodyPublishers.ofString("{\"customer\":\"n\",\"lines\":[]}")).build();
        HttpResponse<String> unsupported = http.send(noContentType, HttpResponse.BodyHandlers.ofString());
        assertThat(unsupported.statusCode()).isEqualTo(415);
        assertThat(unsupported.body()).startsWith("{\"error\":").contains("application/json");
        assertNoInternalNames(unsupported);
        // a body over 1 MiB, with its length announced and sent in chunks: 413 in the same JSON shape
        String huge = "{\"customer\":\"" + "x".repeat(2 * 1024 * 1024) + "\",\"lines\":[]}";
        HttpResponse<String> announced = send("POST", "/orders", huge);
        HttpResponse<String> chunked = http.send(HttpRequest.newBuilder(URI.create(API + "/orders"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new java.io.ByteArrayInputStream(
                        huge.getBytes(java.nio.charset.StandardCharsets.UTF_8)))).build(),
                HttpResponse.BodyHandlers.ofString());
        for (HttpResponse<String> tooLarge : List.of(announced, chunked)) {
            assertThat(tooLarge.statusCode()).as(tooLarge.body()).isEqualTo(413);
            assertThat(tooLarge.body()).startsWith("{\"error\":").contains("1 MiB");
            assertNoInternalNames(tooLarge);
        }
        HttpResponse<String> nowhere = send("GET", "/no-such-thing", null);
        assertThat(nowhere.statusCode()).isEqualTo(404);
        assertNoInternalNames(nowhere);

        assertThat(count("SELECT COUNT(*) FROM orders")).isEqualTo(orders);
        assertThat(count("SELECT COUNT(*) FROM order_line")).isEqualTo(lines);
    }

    @Test
    void everyTotalTheWriteSideAcceptsReachesTheReadModels() throws Exception {
        // three orders at the largest line the API takes: each total, and their sum, is beyond the former
        // DECIMAL(14,2) columns, which froze the customer's statistics at its first order
        String customer = "big-" + UUID.randomUUID();
        String bigLine = "{\"sku\":\"a\",\"quantity\":1000000,\"price\":9999999999.99}";
        long last = 0;
        for (int i = 0; i < 3; i++) {
            HttpResponse<String> created = send("POST", "/orders", "{\"customer\":\"" + customer + "\",\"lines\":["
                    + bigLine + "]}");
            assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
            last = idOf(created.body());
        }
        BigDecimal perOrder = new BigDecimal("9999999999990000.00");
        awaitRow("SELECT total FROM order_search WHERE order_id = ?", last, perOrder);
        awaitRow("SELECT order_count FROM customer_stats WHERE customer_name = ?", customer, 3);
        awaitRow("SELECT total_amount FROM customer_stats WHERE customer_name = ?", customer,
                perOrder.multiply(BigDecimal.valueOf(3)));

        // an order may grow to ten such lines; the eleventh would pass the largest total a read model holds
        for (int i = 1; i < 10; i++) {
            assertThat(send("POST", "/orders/" + last + "/lines", bigLine).statusCode()).isBetween(200, 201);
        }
        HttpResponse<String> tooMuch = send("POST", "/orders/" + last + "/lines", bigLine);
        assertBadRequestNaming(tooMuch, "total");
        assertThat(count("SELECT COUNT(*) FROM order_line WHERE order_id = " + last)).isEqualTo(10);
        awaitRow("SELECT total FROM order_search WHERE order_id = ?", last, perOrder.multiply(BigDecimal.TEN));
    }

    @Test
    void aNonRetryableFaultParksTheNextOrdersMarkAtOnce() throws Exception {
        String tenant = "parking-" + UUID.randomUUID().toString().substring(0, 8);
        // the fault hits order-search's next refresh, whichever: none other may be due when it is set
        Await.until("no order-search mark due", () -> ((Number) query("SELECT COUNT(*) FROM projection_pending"
                + " WHERE projection = 'order-search' AND available_at <= CURRENT_TIMESTAMP", null).get(0)).longValue() == 0);
        assertThat(send("POST", "/faults/order-search?failNext=1&nonRetryable=true&message=bad+data", null).body())
                .contains("\"nonRetryable\":true");
        HttpResponse<String> created = send("POST", "/orders",
                "{\"customer\":\"p\",\"lines\":[{\"sku\":\"a\",\"quantity\":1,\"price\":1}]}", tenant);
        long id = idOf(created.body());
        try {
            awaitRow("SELECT attempts FROM projection_pending WHERE projection = 'order-search' AND parked_at IS NOT NULL"
                    + " AND entity_id = ?", String.valueOf(id), 1);
            assertThat(query("SELECT last_error FROM projection_pending WHERE projection = 'order-search'"
                    + " AND entity_id = ?", String.valueOf(id)))
                    .containsExactly("dev.projections.NonRetryableRefreshException: bad data");
        } finally {
            TestSql.execute("DELETE FROM projection_pending WHERE tenant_id = '" + tenant + "'");
        }
    }

    @Test
    void aValueNoReadModelCanHoldParksItsMarkInsteadOfRetryingForEver() throws Exception {
        // written past the API's checks, as a script on the database could: the order's total no longer fits
        // order_search.total, the refresh fails with Hibernate's DataException, which the demo lists as
        // non-retryable (META-INF/projection.properties)
        String tenant = "overflow-" + UUID.randomUUID().toString().substring(0, 8);
        long id = idOf(send("POST", "/orders", "{\"customer\":\"o\",\"lines\":[{\"sku\":\"a\",\"quantity\":1,"
                + "\"price\":1}]}", tenant).body());
        try {
            awaitRow("SELECT total FROM order_search WHERE order_id = ?", id, BigDecimal.ONE);
            TestSql.execute("UPDATE order_line SET quantity = 2147483647, price = 9999999999.99 WHERE order_id = " + id);
            assertThat(send("PUT", "/orders/" + id + "/status", "{\"status\":\"PAID\"}", tenant).statusCode())
                    .isBetween(200, 204);
            awaitRow("SELECT attempts FROM projection_pending WHERE projection = 'order-search' AND parked_at IS NOT NULL"
                    + " AND entity_id = ?", String.valueOf(id), 1);
        } finally {
            TestSql.execute("DELETE FROM projection_pending WHERE tenant_id = '" + tenant + "'");
            for (String table : List.of("orders", "order_search", "customer_stats", "customer")) {
                TestSql.execute("DELETE FROM " + table + " WHERE tenant_id = '" + tenant + "'");
            }
        }
    }

    private static void assertBadRequestNaming(HttpResponse<String> response, String named) {
        assertThat(response.statusCode()).as(response.request().uri() + " " + response.body()).isEqualTo(400);
        assertThat(response.body()).startsWith("{\"error\":").contains(named);
        assertNoInternalNames(response);
    }

    private static void assertNoInternalNames(HttpResponse<String> response) {
        assertThat(response.body()).as("error body of " + response.request().uri())
                .doesNotContain("java.").doesNotContain("jakarta.").doesNotContain("RESTEASY")
                .doesNotContain("Exception");
    }

    private HttpResponse<String> send(String method, String path, String json) throws Exception {
        return send(method, path, json, null);
    }

    private HttpResponse<String> send(String method, String path, String json, String tenant) throws Exception {
        return send(method, path, json, tenant, null);
    }

    private HttpResponse<String> send(String method, String path, String json, String tenant, String awaitRefresh)
            throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(API + path));
        if (awaitRefresh != null) {
            request.header("X-Await-Refresh", awaitRefresh);
        }
        if (tenant != null) {
            request.header("X-Tenant", tenant);
        }
        if (json != null) {
            request.header("Content-Type", "application/json");
        }
        request.method(method, json == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(json));
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static long idOf(String body) {
        Matcher m = ID.matcher(body);
        assertThat(m.find()).as(body).isTrue();
        return Long.parseLong(m.group(1));
    }

    private static void awaitRow(String sql, Object key, Object expected) {
        Await.until(sql + " [" + key + "] = " + expected, () -> {
            List<Object> values = query(sql, key);
            return !values.isEmpty() && equal(values.get(0), expected);
        });
    }

    private static boolean equal(Object actual, Object expected) {
        if (actual instanceof BigDecimal a && expected instanceof BigDecimal e) {
            return a.compareTo(e) == 0;
        }
        if (actual instanceof Number a && expected instanceof Number e) {
            return a.longValue() == e.longValue();
        }
        return expected.equals(actual);
    }

    private static long count(String sql) throws Exception {
        return ((Number) query(sql, null).get(0)).longValue();
    }

    private static List<Object> query(String sql, Object parameter) {
        try (Connection connection = TestDatabase.get().connect();
             PreparedStatement statement = connection.prepareStatement(sql)) {
            if (parameter != null) {
                statement.setObject(1, parameter);
            }
            try (ResultSet rs = statement.executeQuery()) {
                List<Object> values = new ArrayList<>();
                while (rs.next()) {
                    values.add(rs.getObject(1));
                }
                return values;
            }
        } catch (Exception e) {
            throw new IllegalStateException(sql, e);
        }
    }
}
