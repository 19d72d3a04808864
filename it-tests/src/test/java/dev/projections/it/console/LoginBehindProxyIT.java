package dev.projections.it.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.it.support.ConsoleUsers;
import dev.projections.it.support.Deployments;
import dev.projections.it.support.LoopbackClient;
import dev.projections.it.support.OpenApiContract;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Logins behind a reverse proxy (docs/contract.md §12, "Logins"): with {@code projection.console.trusted-proxies}
 * naming the proxy (127.0.0.6 here), the throttle counts the client the proxy forwards, so one client's burst of wrong
 * passwords slows no other client behind the same proxy; an {@code X-Forwarded-For} from any other address is
 * ignored, so a client cannot pick the address it is counted under. On the form login and on the management API,
 * each test from addresses and forwarded clients of its own (the throttle is shared by both).
 */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class LoginBehindProxyIT {

    private static final String PROXY = "127.0.0.6";

    @Deployment(testable = false)
    static EnterpriseArchive deployment() {
        return Deployments.ear(Map.of("projection.auto-refresh", "false",
                "projection.console.trusted-proxies", PROXY + ", 10.0.0.0/8"));
    }

    @Test
    void throughTheProxyOneClientsWrongPasswordsSlowThatClientOnlyOnTheFormLogin() {
        for (int i = 0; i < 5; i++) {
            assertThat(formLogin(PROXY, "198.51.100.1", ConsoleUsers.VIEWER, "wrong-" + i)).startsWith("HTTP/1.1 200");
        }
        assertThat(formLogin(PROXY, "198.51.100.1", ConsoleUsers.VIEWER, "wrong-5")).as("the bursting client waits")
                .startsWith("HTTP/1.1 429");
        assertThat(formLogin(PROXY, "198.51.100.2, 198.51.100.1", ConsoleUsers.VIEWER, ConsoleUsers.VIEWER_PASSWORD))
                .as("a header the client sent through the proxy does not make it another client")
                .startsWith("HTTP/1.1 429");
        assertThat(formLogin(PROXY, "198.51.100.2", ConsoleUsers.VIEWER, ConsoleUsers.VIEWER_PASSWORD))
                .as("another client behind the same proxy logs in at once").startsWith("HTTP/1.1 302");
    }

    @Test
    void aForwardedHeaderFromAnAddressThatIsNoProxyIsIgnoredOnTheFormLogin() {
        for (int i = 0; i < 5; i++) {
            assertThat(formLogin("127.0.0.7", "198.51.100.1" + i, ConsoleUsers.VIEWER, "wrong-" + i))
                    .startsWith("HTTP/1.1 200");
        }
        assertThat(formLogin("127.0.0.7", "198.51.100.19", ConsoleUsers.VIEWER, ConsoleUsers.VIEWER_PASSWORD))
                .as("counted by its own address, whatever it claims").startsWith("HTTP/1.1 429");
    }

    @Test
    void throughTheProxyOneClientsWrongPasswordsSlowThatClientOnlyOnTheApi() {
        for (int i = 0; i < 5; i++) {
            assertThat(apiGet(PROXY, "198.51.100.3", basic(ConsoleUsers.ADMIN, "wrong-" + i))).startsWith("HTTP/1.1 401");
        }
        assertThat(apiGet(PROXY, "198.51.100.3", admin())).as("the bursting client waits").startsWith("HTTP/1.1 429");
        assertThat(apiGet(PROXY, "198.51.100.4", admin())).as("another client behind the same proxy is answered")
                .startsWith("HTTP/1.1 200");
    }

    @Test
    void aForwardedHeaderFromAnAddressThatIsNoProxyIsIgnoredOnTheApi() {
        for (int i = 0; i < 5; i++) {
            assertThat(apiGet("127.0.0.8", "198.51.100.2" + i, basic(ConsoleUsers.ADMIN, "wrong-" + i)))
                    .startsWith("HTTP/1.1 401");
        }
        assertThat(apiGet("127.0.0.8", "198.51.100.29", admin())).as("counted by its own address, whatever it claims")
                .startsWith("HTTP/1.1 429");
    }

    private static String formLogin(String from, String forwardedFor, String user, String password) {
        String body = "j_username=" + URLEncoder.encode(user, StandardCharsets.UTF_8) + "&j_password="
                + URLEncoder.encode(password, StandardCharsets.UTF_8);
        return LoopbackClient.send(from, "POST /projections/j_security_check HTTP/1.1\r\n"
                + "X-Forwarded-For: " + forwardedFor + "\r\n"
                + "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: " + body.length() + "\r\n", body);
    }

    private static String apiGet(String from, String forwardedFor, String authorization) {
        return OpenApiContract.ofSourceTree().assertRawAnswer("GET", URI.create("http://127.0.0.1:8080/projections/api/v1/projections"),
                LoopbackClient.send(from, "GET /projections/api/v1/projections HTTP/1.1\r\nX-Forwarded-For: "
                        + forwardedFor + "\r\nAuthorization: " + authorization + "\r\n", ""));
    }

    private static String admin() {
        return basic(ConsoleUsers.ADMIN, ConsoleUsers.ADMIN_PASSWORD);
    }

    private static String basic(String user, String password) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }
}
