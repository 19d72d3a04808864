package dev.projections.console.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The management API's routing, query strings and JSON bodies (docs/contract.md §12), without a server: each path
 * finds its one endpoint, a wrong method is a 405 naming the allowed ones, and every bad body or query is a problem
 * that names the bad value.
 */
class ApiRoutingTest {

    @Test
    void eachPathFindsItsEndpointWithTheNamesInIt() {
        ManagementApi.Route read = ManagementApi.Route.of("GET", "/projections/order-search");
        assertThat(read.values()).containsExactly("order-search");
        assertThat(read.acts()).as("a read changes nothing").isFalse();

        ManagementApi.Route pause = ManagementApi.Route.of("POST", "/projections/order-search/pause");
        assertThat(pause.values()).containsExactly("order-search");
        assertThat(pause.acts()).isTrue();

        assertThat(ManagementApi.Route.of("POST", "/rebuilds/run-1/cancel").values()).containsExactly("run-1");
        assertThat(ManagementApi.Route.of("GET", "/projections").values()).isEmpty();
        assertThat(ManagementApi.Route.of("GET", "/instances").acts()).as("the instances and their roles: a read")
                .isFalse();
    }

    @Test
    void anUnknownPathIsNotFoundAndAnEmptyNameMatchesNothing() {
        assertThatThrownBy(() -> ManagementApi.Route.of("GET", "/projection/order-search"))
                .isInstanceOfSatisfying(ApiProblem.class, problem -> assertThat(problem.status()).isEqualTo(404))
                .hasMessageContaining("openapi.yaml");
        assertThatThrownBy(() -> ManagementApi.Route.of("POST", "/projections//pause"))
                .isInstanceOfSatisfying(ApiProblem.class, problem -> assertThat(problem.status()).isEqualTo(404));
        assertThatThrownBy(() -> ManagementApi.Route.of("GET", "/projections/order-search/"))
                .isInstanceOfSatisfying(ApiProblem.class, problem -> assertThat(problem.status()).isEqualTo(404));
    }

    @Test
    void aWrongMethodIsNotAllowedAndTheAnswerSaysWhichAre() {
        assertThatThrownBy(() -> ManagementApi.Route.of("GET", "/projections/order-search/pause"))
                .isInstanceOfSatisfying(ApiProblem.class, problem -> {
                    assertThat(problem.status()).isEqualTo(405);
                    assertThat(problem.header("Allow")).isEqualTo("POST");
                });
        assertThatThrownBy(() -> ManagementApi.Route.of("DELETE", "/projections/order-search/rebuilds"))
                .isInstanceOfSatisfying(ApiProblem.class,
                        problem -> assertThat(problem.header("Allow")).isEqualTo("GET, POST"));
    }

    @Test
    void theQueryStringIsDecodedTheFirstOfEachNameKept() {
        assertThat(ManagementApi.query("state=parked&error=Time%20out&state=failing&tenant"))
                .isEqualTo(Map.of("state", "parked", "error", "Time out", "tenant", ""));
        assertThat(ManagementApi.query(null)).isEmpty();
        assertThatThrownBy(() -> ManagementApi.query("error=%zz"))
                .isInstanceOfSatisfying(ApiProblem.class, problem -> assertThat(problem.status()).isEqualTo(400));
    }

    @Test
    void aBodyIsAJsonObjectOfKnownFieldsOfTheirTypes() throws Exception {
        JsonBody body = body("{\"tenant\": \"acme\", \"expected\": 3}");
        assertThat(body.string("tenant")).isEqualTo("acme");
        assertThat(body.number("expected")).isEqualTo(3L);
        assertThat(body.string("id")).as("absent").isNull();
        assertThat(JsonBody.read(new ByteArrayInputStream(new byte[0]), null, Set.of("id")).string("id"))
                .as("no body at all: every field absent").isNull();
    }

    @Test
    void aBadBodyIsRefusedNamingWhatIsWrong() {
        assertProblem(() -> body("{\"tenant\": \"acme\", \"tenants\": 1}"), 400, "unknown field");
        assertProblem(() -> body("[1, 2]"), 400, "must be a JSON object");
        assertProblem(() -> body("{\"tenant\": "), 400, "not JSON");
        assertProblem(() -> body("{\"expected\": \"3\"}").number("expected"), 400, "\"expected\" must be a whole number");
        assertProblem(() -> body("{\"tenant\": 7}").string("tenant"), 400, "\"tenant\" must be a string");
        assertProblem(() -> JsonBody.read(new ByteArrayInputStream("tenant=acme".getBytes(StandardCharsets.UTF_8)),
                "application/x-www-form-urlencoded", Set.of("tenant")), 415, "application/json");
    }

    private static void assertProblem(org.assertj.core.api.ThrowableAssert.ThrowingCallable call, int status,
                                      String detail) {
        assertThatThrownBy(call).isInstanceOfSatisfying(ApiProblem.class,
                problem -> assertThat(problem.status()).isEqualTo(status)).hasMessageContaining(detail);
    }

    private static JsonBody body(String json) throws Exception {
        return JsonBody.read(new ByteArrayInputStream(json.getBytes(StandardCharsets.UTF_8)), "application/json",
                List.of("tenant", "id", "error", "expected").stream().collect(java.util.stream.Collectors.toSet()));
    }
}
