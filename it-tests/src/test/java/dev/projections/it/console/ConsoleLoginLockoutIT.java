package dev.projections.it.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.it.support.ConsoleHttp;
import dev.projections.it.support.ConsoleUsers;
import dev.projections.it.support.Deployments;
import java.time.Duration;
import java.util.Map;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Wrong passwords lock a console user only briefly: WildFly's default (10 tries, then 15 minutes renewed by every
 * further try) let anyone who reaches the login page keep an operator out; the server is configured for 5 tries
 * and 1 minute. The lockout runs on Elytron's own clock, which a test cannot move: this one waits it out.
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
    void afterFiveWrongPasswordsTheRightOneWorksAgainAMinuteAfterTheLastTry() throws Exception {
        for (int i = 0; i < 5; i++) {
            assertThat(logsIn(ConsoleUsers.VIEWER, "wrong-" + i)).isFalse();
        }
        assertThat(logsIn(ConsoleUsers.VIEWER, ConsoleUsers.VIEWER_PASSWORD)).as("locked after 5 wrong passwords")
                .isFalse();
        Thread.sleep(Duration.ofSeconds(65).toMillis()); // lockout-interval is 1 minute from the last try
        assertThat(logsIn(ConsoleUsers.VIEWER, ConsoleUsers.VIEWER_PASSWORD)).as("a minute after the last try")
                .isTrue();
    }

    private static boolean logsIn(String user, String password) throws Exception {
        try {
            new ConsoleHttp().logIn(user, password);
            return true;
        } catch (IllegalStateException refused) {
            return false;
        }
    }
}
