package dev.projections.it.settings;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.it.support.ConsoleHttp;
import dev.projections.it.support.ConsoleUsers;
import dev.projections.it.support.Deployments;
import dev.projections.it.support.Management;
import java.util.Map;
import org.jboss.arquillian.container.test.api.Deployer;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.as.controller.client.helpers.Operations;
import org.jboss.dmr.ModelNode;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Settings through MicroProfile Config on WildFly (docs/guide/configuration.md "Configuration"): a value in a {@code config-source} resource
 * of the server's {@code microprofile-config-smallrye} subsystem is in force for the next deployment, global or per
 * projection, and the console names the source; a key there naming no deployed projection is logged, not fatal: the
 * server's sources are shared by every application on it.
 */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class MicroProfileConfigIT {

    @ArquillianResource
    Deployer deployer;

    @Deployment(name = "read-through-config", managed = false, testable = false)
    static EnterpriseArchive readThroughConfig() {
        return ShrinkWrap.create(EnterpriseArchive.class, "read-through-config.ear")
                .merge(Deployments.ear(Map.of("projection.order-search.max-attempts", "9")));
    }

    @Test
    void aWildFlyConfigSourceSetsGlobalAndPerProjectionValuesOverThePackagedFile() throws Exception {
        // the packaged file says 9 for order-search; the server's config source says 4, and 7s for every projection
        withConfigSource(Map.of("projection.order-search.max-attempts", "4", "projection.retry-delay", "7s"), () -> {
            deployer.deploy("read-through-config");
            try {
                ConsoleHttp console = new ConsoleHttp();
                console.logIn(ConsoleUsers.VIEWER, ConsoleUsers.VIEWER_PASSWORD);
                String page = console.get("projection.xhtml?name=order-search").body();
                assertThat(page).containsPattern("<code>projection\\.order-search\\.max-attempts</code></td>\\s*<td><span "
                        + "class=\"setting-value\">4</span></td>\\s*<td><span class=\"setting-origin\">MicroProfile Config "
                        + "[^<]*projections-it");
                assertThat(page).containsPattern("<code>projection\\.order-search\\.retry-delay</code></td>\\s*<td><span "
                        + "class=\"setting-value\">7s</span></td>\\s*<td><span class=\"setting-origin\">MicroProfile "
                        + "Config [^<]*projections-it[^<]*\\(global\\)");
            } finally {
                deployer.undeploy("read-through-config");
            }
        });
    }

    @Test
    void aKeyInAServerConfigSourceNamingNoDeployedProjectionIsWarnedAboutNotFatalForItMayBeAnotherApplications()
            throws Exception {
        // the Arquillian server of each pass logs to a folder of its own (TestDatabaseConfigurer)
        String logDir = System.getProperty("projection.it.server-log-dir", "");
        java.nio.file.Path log = logDir.isBlank()
                ? java.nio.file.Path.of(System.getProperty("wildfly.home"), "standalone", "log", "server.log")
                : java.nio.file.Path.of(logDir, "server.log");
        withConfigSource(Map.of("projection.other-app.max-attempts", "4"), () -> {
            long before = java.nio.file.Files.size(log);
            deployer.deploy("read-through-config");
            try {
                String since = java.nio.file.Files.readString(log).substring((int) before);
                assertThat(since).contains("projection.other-app.max-attempts=4 names no deployed projection "
                        + "(deployed: customer-stats, order-search); ignored: it comes from MicroProfile Config");
            } finally {
                deployer.undeploy("read-through-config");
            }
        });
    }

    /** A config source {@code projections-it} of the server's MicroProfile Config with {@code values} while {@code test} runs. */
    private static void withConfigSource(Map<String, String> values, ThrowingRunnable test) throws Exception {
        ModelNode address = Operations.createAddress("subsystem", "microprofile-config-smallrye", "config-source",
                "projections-it");
        ModelNode add = Operations.createAddOperation(address);
        values.forEach((key, value) -> add.get("properties").get(key).set(value));
        Management.execute(add);
        try {
            test.run();
        } finally {
            // a removed config source stays in force until the server reloads: the tests after this one must not
            // see it
            Management.execute(Operations.createRemoveOperation(address));
            Management.reload();
        }
    }

    private interface ThrowingRunnable {
        void run() throws Exception;
    }
}
