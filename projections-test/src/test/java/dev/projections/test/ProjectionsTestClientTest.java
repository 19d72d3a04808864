package dev.projections.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The client's side of the test support's protocol (the servlet's side is proven against the deployed example
 * applications by the installation tests): what it asks, how it reads the answers, and what it says when the
 * application answers otherwise. The answers here are the servlet's, as docs/contract.md §14 gives them.
 */
class ProjectionsTestClientTest {

    /* written by the server's thread, read by the test's */
    private final List<String> asked = new CopyOnWriteArrayList<>();
    private HttpServer server;
    private volatile int status = 200;
    private volatile String answer = "";

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/app/projections/test/", exchange -> {
            asked.add(exchange.getRequestMethod() + " " + exchange.getRequestURI());
            byte[] body = answer.getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(status, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private ProjectionsTestClient client() {
        return ProjectionsTestClient.at("http://127.0.0.1:" + server.getAddress().getPort() + "/app/projections/");
    }

    @Test
    void anIdleWaitNamesItsProjectionsAndTimeoutAndReadsTheAnswer() {
        answer = "{\"idle\":true,\"waitedMs\":42,\"pending\":{\"book-titles\":0},\"failing\":{},\"parked\":{}}";

        ProjectionsTestClient.Idle idle = client().assertIdle(Duration.ofSeconds(5), "book-titles", "a b");

        assertThat(asked).containsExactly("POST /app/projections/test/idle?projection=book-titles&projection=a+b"
                + "&timeout=5000ms");
        assertThat(idle.idle()).isTrue();
        assertThat(idle.waited()).isEqualTo(Duration.ofMillis(42));
    }

    @Test
    void projectionsNotIdleFailTheTestWithTheCountsTheServerGave() {
        answer = "{\"idle\":false,\"waitedMs\":1000,\"pending\":{\"book-titles\":3},\"failing\":{},\"parked\":{}}";

        assertThat(client().awaitIdle(Duration.ofSeconds(1)).idle()).isFalse();
        assertThatThrownBy(() -> client().assertIdle(Duration.ofSeconds(1), "book-titles"))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("not idle after PT1S (asked PT1S, book-titles)")
                .hasMessageContaining("\"book-titles\":3");
    }

    @Test
    void aRefreshNowSaysHowManyMarksItMadeDue() {
        answer = "{\"madeDue\":7}";

        assertThat(client().refreshNow()).isEqualTo(7);
        assertThat(asked).containsExactly("POST /app/projections/test/refresh");
    }

    @Test
    void testSupportTurnedOffIsNamedWithTheSettingThatTurnsItOn() {
        status = 404;

        assertThatThrownBy(() -> client().refreshNow("book-titles")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("answered 404").hasMessageContaining("projection.test-support=true");
    }

    @Test
    void aRefusalOfTheServerIsABadArgumentWithItsReason() {
        status = 400;
        answer = "{\"error\":\"no projection no-such; deployed: book-titles\"}";

        assertThatThrownBy(() -> client().awaitIdle(Duration.ofSeconds(1), "no-such"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no projection no-such");
    }

    @Test
    void aUrlThatIsNotHttpIsRefusedNamingIt() {
        assertThatThrownBy(() -> ProjectionsTestClient.at("localhost:8080/projections"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("localhost:8080/projections");
        assertThatThrownBy(() -> ProjectionsExtension.at(" ")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theExtensionTakesItsUrlFromTheSystemPropertyElseTheDefault() {
        String before = System.getProperty(ProjectionsExtension.URL_PROPERTY);
        try {
            System.clearProperty(ProjectionsExtension.URL_PROPERTY);
            if (System.getenv(ProjectionsExtension.URL_VARIABLE) == null) {
                assertThat(new ProjectionsExtension().url()).isEqualTo(ProjectionsExtension.DEFAULT_URL);
            }
            System.setProperty(ProjectionsExtension.URL_PROPERTY, "http://ci:8080/notes/projections");
            assertThat(new ProjectionsExtension().url()).isEqualTo("http://ci:8080/notes/projections");
            assertThat(ProjectionsExtension.at("http://other/projections").url()).isEqualTo("http://other/projections");
        } finally {
            if (before == null) {
                System.clearProperty(ProjectionsExtension.URL_PROPERTY);
            } else {
                System.setProperty(ProjectionsExtension.URL_PROPERTY, before);
            }
        }
    }
}
