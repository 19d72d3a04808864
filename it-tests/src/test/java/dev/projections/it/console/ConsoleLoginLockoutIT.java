package dev.projections.it.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.it.support.Await;
import dev.projections.it.support.ConsoleHttp;
import dev.projections.it.support.ConsoleUsers;
import dev.projections.it.support.Deployments;
import dev.projections.it.support.LoopbackClient;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Wrong passwords slow down the address that sends them, never the operator (docs/contract.md §12, "Logins"): WildFly's
 * per-account lock (renewed by every try) let anyone who reaches the login page keep an operator out, so it is off and
 * the console throttles by client address instead. The bursts come from 127.0.0.2, the operator from 127.0.0.1 (both
 * loopback; the server listens on 127.0.0.1), each burst address used by one test only.
 */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class ConsoleLoginLockoutIT {

    @Deployment(testable = false)
    static EnterpriseArchive deployment() {
        return Deployments.ear(Map.of("projection.auto-refresh", "false"));
    }

    @Test
    void theLoginPageNamesNoUser() throws Exception {
        String page = new ConsoleHttp().get("").body();
        assertThat(page).contains("j_security_check");
        assertThat(page).doesNotContain(ConsoleUsers.ADMIN + "</code>").doesNotContain(ConsoleUsers.VIEWER + "</code>")
                .doesNotContain("PROJECTION_ADMIN_PASSWORD");
    }

    @Test
    void twelveWrongPasswordsReachingTheRealmDoNotKeepTheAdminOutAndTheBurstingAddressIsSlowed() throws Exception {
        // four from each of three addresses: none is slowed yet, so the realm checks all twelve (WildFly's own lock
        // would have taken the admin out after ten)
        for (String from : new String[] {"127.0.0.2", "127.0.0.4", "127.0.0.5"}) {
            for (int i = 0; i < 4; i++) {
                assertThat(formLogin(from, ConsoleUsers.ADMIN, "wrong-" + i)).as("checked and refused")
                        .startsWith("HTTP/1.1 200");
            }
        }
        assertThat(formLogin("127.0.0.2", ConsoleUsers.ADMIN, "wrong-5")).startsWith("HTTP/1.1 200");
        assertThat(formLogin("127.0.0.2", ConsoleUsers.ADMIN, "wrong-6")).as("its fifth failure made it wait")
                .startsWith("HTTP/1.1 429");
        assertThat(logsIn(ConsoleUsers.ADMIN, ConsoleUsers.ADMIN_PASSWORD))
                .as("the admin's own address logs in at once: no per-account lock").isTrue();
    }

    @Test
    void theBurstingAddressWaitsEvenWithTheRightPasswordAndGetsInOnceItsDelayPassed() throws Exception {
        for (int i = 0; i < 5; i++) {
            assertThat(formLogin("127.0.0.3", ConsoleUsers.VIEWER, "wrong-" + i)).startsWith("HTTP/1.1 200");
        }
        String slowed = formLogin("127.0.0.3", ConsoleUsers.VIEWER, ConsoleUsers.VIEWER_PASSWORD);
        assertThat(slowed).startsWith("HTTP/1.1 429").containsIgnoringCase("Retry-After: 1")
                .contains("too many failed logins from this address");
        Await.until("the address's 1 s passed", Duration.ofSeconds(10), () -> formLogin("127.0.0.3",
                ConsoleUsers.VIEWER, ConsoleUsers.VIEWER_PASSWORD).startsWith("HTTP/1.1 302"));
    }

    private static boolean logsIn(String user, String password) throws Exception {
        try {
            new ConsoleHttp().logIn(user, password);
            return true;
        } catch (IllegalStateException refused) {
            return false;
        }
    }

    /** A form login's POST from {@code from}. */
    private static String formLogin(String from, String user, String password) {
        String body = "j_username=" + URLEncoder.encode(user, StandardCharsets.UTF_8) + "&j_password="
                + URLEncoder.encode(password, StandardCharsets.UTF_8);
        return LoopbackClient.send(from, "POST /projections/j_security_check HTTP/1.1\r\n"
                + "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: " + body.length() + "\r\n", body);
    }
}
