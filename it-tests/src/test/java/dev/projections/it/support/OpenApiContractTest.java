package dev.projections.it.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The contract check finds what it must: a check that let everything through would let the integration tests pass
 * with any answer (a validator tried first read OpenAPI 3.1 schemas as empty and passed {"projections": 5}).
 */
class OpenApiContractTest {

    private static final String API = "http://127.0.0.1:8080/projections/api/v1/";
    private static final Map<String, String> ADMIN = Map.of("authorization", "Basic YWRtaW46YWRtaW4=");
    private static final String PROJECTION = "{\"name\":\"orders\",\"state\":\"running\",\"suspendedReason\":null,"
            + "\"pending\":0,\"due\":0,\"failing\":0,\"parked\":0,\"oldestDueAgeMillis\":null,\"lastError\":null,"
            + "\"latestRebuild\":null,\"links\":{}}";

    private static final String RUN = "{\"id\":\"r1\",\"projection\":\"orders\",\"tenant\":\"\",\"state\":\"RUNNING\","
            + "\"marked\":0,\"remaining\":0,\"failing\":0,\"ratePerSecond\":0.0,\"startedAt\":\"2026-12-06T10:00:00Z\","
            + "\"finishedAt\":null,\"startedBy\":null,\"cancelledBy\":null,\"lastError\":null,\"scope\":{},"
            + "\"partitions\":1,\"partitionsDone\":0,\"takeovers\":0,\"kind\":\"REBUILD\",\"links\":{}}";

    private final OpenApiContract contract = OpenApiContract.ofSourceTree();

    @Test
    void aRequestAndAnswerAsTheDocumentSaysPass() {
        URI uri = URI.create(API + "projections/orders/marks?state=failing&limit=3");
        assertThat(contract.requestProblems("GET", uri, ADMIN, null)).isEmpty();
        assertThat(contract.responseProblems("GET", URI.create(API + "projections"), 200, "application/json",
                "{\"projections\":[" + PROJECTION + "]}")).isEmpty();
        assertThat(contract.requestProblems("POST", URI.create(API + "projections/orders/marks/retry"),
                Map.of("authorization", "Basic eDp5", "content-type", "application/json"), "{\"tenant\":\"acme\",\"expected\":2}"))
                .isEmpty();
    }

    @Test
    void aLiteralPathIsPreferredToATemplateThatAlsoMatchesIt() {
        assertThat(contract.operation("POST", URI.create(API + "projections/orders/marks/retry")))
                .hasValueSatisfying(operation -> assertThat(operation.template()).isEqualTo("/projections/{name}/marks/retry"));
    }

    @Test
    void anAnswerOfTheWrongShapeOrAnUndeclaredStatusOrTypeIsFound() {
        URI projections = URI.create(API + "projections");
        assertThat(contract.responseProblems("GET", projections, 200, "application/json", "{\"projections\":5}"))
                .singleElement().asString().contains("projections");
        assertThat(contract.responseProblems("GET", projections, 200, "application/json",
                "{\"projections\":[" + PROJECTION.replace("\"running\"", "\"dozing\"") + "]}"))
                .singleElement().asString().contains("state");
        assertThat(contract.responseProblems("GET", projections, 418, "application/json", "{}"))
                .singleElement().asString().contains("not in the document");
        assertThat(contract.responseProblems("GET", projections, 200, "text/html", "<html/>"))
                .singleElement().asString().contains("text/html");
        assertThat(contract.responseProblems("GET", URI.create(API + "nothing/here"), 200, "application/json", "{}"))
                .singleElement().asString().contains("not 404");
        assertThat(contract.responseProblems("GET", URI.create(API + "nothing/here"), 500, "application/problem+json",
                "{\"type\":\"about:blank\",\"title\":\"x\",\"status\":500,\"detail\":\"x\"}"))
                .singleElement().asString().contains("not 404");
        // an envelope or an item without the fields the document requires, or a date that is none
        assertThat(contract.responseProblems("GET", projections, 200, "application/json", "{}"))
                .singleElement().asString().contains("projections");
        assertThat(contract.responseProblems("GET", projections, 200, "application/json", "{\"projections\":[{}]}"))
                .anySatisfy(problem -> assertThat(problem).contains("name"))
                .anySatisfy(problem -> assertThat(problem).contains("state"));
        assertThat(contract.responseProblems("GET", URI.create(API + "rebuilds/r1"), 200, "application/json",
                RUN.replace("2026-12-06T10:00:00Z", "yesterday"))).singleElement().asString().contains("startedAt");
        assertThat(contract.responseProblems("GET", URI.create(API + "rebuilds/r1"), 200, "application/json", RUN))
                .isEmpty();
        assertThat(contract.responseProblems("GET", URI.create(API + "nothing/here"), 404, "application/problem+json",
                "{\"status\":\"404\"}")).anySatisfy(problem -> assertThat(problem).contains("/status"))
                .anySatisfy(problem -> assertThat(problem).contains("detail"));
    }

    @Test
    void anAnswerWithoutTheHeadersTheDocumentRequiresIsFound() {
        URI projections = URI.create(API + "projections");
        String problem = "{\"type\":\"about:blank\",\"title\":\"Unauthorized\",\"status\":401,\"detail\":\"x\"}";
        assertThat(contract.responseProblems("GET", projections, 401, Map.of("content-type", "application/problem+json"),
                problem)).singleElement().asString().contains("WWW-Authenticate");
        assertThat(contract.responseProblems("GET", projections, 401, Map.of("Content-Type", "application/problem+json",
                "www-authenticate", "Basic realm=\"Projections\""), problem)).isEmpty();
        assertThat(contract.responseProblems("GET", projections, 429, Map.of("Content-Type", "application/problem+json",
                "Retry-After", "soon"), problem.replace("401", "429"))).singleElement().asString().contains("Retry-After");
    }

    @Test
    void aRequestOutsideTheDocumentIsFound() {
        assertThat(contract.requestProblems("GET", URI.create(API + "projections/orders/marks?state=stuck"), ADMIN, null))
                .singleElement().asString().contains("state");
        assertThat(contract.requestProblems("GET", URI.create(API + "projections/orders/marks?limit=0"), ADMIN, null))
                .singleElement().asString().contains("limit");
        assertThat(contract.requestProblems("GET", URI.create(API + "projections?colour=red"), ADMIN, null))
                .singleElement().asString().contains("colour");
        assertThat(contract.requestProblems("GET", URI.create(API + "projections/orders/marks?limit=0&limit=3"), ADMIN,
                null)).singleElement().asString().contains("2 times");
        assertThat(contract.requestProblems("GET", URI.create(API + "projections"), Map.of(), null))
                .singleElement().asString().contains("HTTP Basic");
        assertThat(contract.requestProblems("DELETE", URI.create(API + "projections/orders"), ADMIN, null))
                .singleElement().asString().contains("no operation");
        assertThat(contract.requestProblems("POST", URI.create(API + "projections/orders/marks/retry"),
                Map.of("authorization", "Basic eDp5", "content-type", "application/json"), "{\"expected\":-1}"))
                .singleElement().asString().contains("expected");
        assertThat(contract.requestProblems("POST", URI.create(API + "projections/orders/pause"), ADMIN, "{\"x\":1}"))
                .singleElement().asString().contains("takes no body");
    }
}
