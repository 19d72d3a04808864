package dev.projections.console.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.projections.MarkKey;
import dev.projections.ee.admin.ActionRefused;
import dev.projections.ee.admin.ConsoleAdmin;
import dev.projections.ee.admin.ConsoleReads;
import dev.projections.ops.DatabaseFailure;
import dev.projections.ops.NoSuchMark;
import dev.projections.ops.UnknownProjection;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import java.io.ByteArrayInputStream;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * What the engine refuses reaches an API caller as a problem chosen by the refusal's type, never by its message
 * (docs/contract.md §12): not found, a bad value, a conflict, or the server's trouble with the database's text kept
 * out of the answer; chosen in one place, as an endpoint's answer is run ({@code ManagementApi.Route#run}).
 */
class ApiRefusalsTest {

    private static ActionRefused refused(RuntimeException cause) {
        return new ActionRefused(cause.getMessage(), cause);
    }

    @Test
    void anUnknownProjectionAndAMarkNotInTheActionsStateAreNotFound() {
        assertThat(ApiProblem.refused(refused(new UnknownProjection("ordrs", Set.of("orders")))).status())
                .isEqualTo(404);
        ApiProblem noMark = ApiProblem.refused(refused(new NoSuchMark(new MarkKey("orders", "", "7"), "failing",
                "retry")));
        assertThat(noMark.status()).isEqualTo(404);
        assertThat(noMark.getMessage()).contains("orders").contains("7");
    }

    @Test
    void anotherBadValueIsTheCallersAndAStateThatForbidsTheActionAConflict() {
        assertThat(ApiProblem.refused(refused(new IllegalArgumentException("partitions must be 1..64, was 0")))
                .status()).isEqualTo(400);
        assertThat(ApiProblem.refused(refused(new IllegalStateException("a rebuild of orders is running"))).status())
                .isEqualTo(409);
        // a message that reads like a refusal of another kind does not change the answer: the type decides
        assertThat(ApiProblem.refused(refused(new IllegalStateException("no failing mark orders/7 to retry")))
                .status()).isEqualTo(409);
    }

    @Test
    void theDatabaseFailingAnActionIsTheServersTroubleAndItsTextStaysInTheLog() {
        ApiProblem problem = ApiProblem.refused(refused(new DatabaseFailure("retry failing marks of orders",
                new SQLException("ERROR: relation \"projection_pending\" does not exist", "42P01"))));

        assertThat(problem.status()).isEqualTo(503);
        assertThat(problem.getMessage()).contains("retry failing marks of orders").doesNotContain("projection_pending");
    }

    @Test
    void aRetryOfAKeyWithNoFailingMarkIsAnsweredNotFound() {
        ConsoleReads reads = new ConsoleReads() {
            @Override
            public Set<String> projectionNames() {
                return Set.of("orders");
            }
        };
        ConsoleAdmin admin = new ConsoleAdmin() {
            @Override
            public void retry(String projection, String tenant, String id) {
                throw refused(new NoSuchMark(new MarkKey(projection, tenant, id), "failing", "retry"));
            }
        };
        ApiResources api = new ApiResources(reads, admin, new ApiLinks("/projections/api/v1"));

        assertThatThrownBy(() -> ManagementApi.Route.of("POST", "/projections/orders/marks/retry")
                .run(api, jsonRequest("{\"id\": \"7\"}"), Map.of()))
                .isInstanceOfSatisfying(ApiProblem.class, problem -> assertThat(problem.status()).isEqualTo(404))
                .hasMessage("no failing mark " + new MarkKey("orders", "", "7") + " to retry");
    }

    @Test
    void aPauseOfAProjectionNotDeployedIsNotFoundByTheEnginesRefusalAlone() {
        ConsoleReads reads = new ConsoleReads() {
            @Override
            public Set<String> projectionNames() {
                throw new AssertionError("the action's own check names the projection: no read before it");
            }
        };
        ConsoleAdmin admin = new ConsoleAdmin() {
            @Override
            public void pause(String projection) {
                throw refused(new UnknownProjection(projection, Set.of("orders")));
            }
        };
        ApiResources api = new ApiResources(reads, admin, new ApiLinks("/projections/api/v1"));

        assertThatThrownBy(() -> ManagementApi.Route.of("POST", "/projections/ordrs/pause").run(api, null, Map.of()))
                .isInstanceOfSatisfying(ApiProblem.class, problem -> assertThat(problem.status()).isEqualTo(404))
                .hasMessage("unknown projection \"ordrs\"; known projections: [orders]");
    }

    /** A request of an action whose body is {@code json}: all an endpoint asks of it. */
    private static HttpServletRequest jsonRequest(String json) {
        ServletInputStream body = new ServletInputStream() {
            private final ByteArrayInputStream bytes = new ByteArrayInputStream(json.getBytes(StandardCharsets.UTF_8));

            @Override
            public int read() {
                return bytes.read();
            }

            @Override
            public boolean isFinished() {
                return bytes.available() == 0;
            }

            @Override
            public boolean isReady() {
                return true;
            }

            @Override
            public void setReadListener(ReadListener listener) {
                throw new UnsupportedOperationException();
            }
        };
        return (HttpServletRequest) Proxy.newProxyInstance(ApiRefusalsTest.class.getClassLoader(),
                new Class<?>[] {HttpServletRequest.class}, (proxy, method, arguments) -> switch (method.getName()) {
                    case "getInputStream" -> body;
                    case "getContentType" -> "application/json";
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }
}
