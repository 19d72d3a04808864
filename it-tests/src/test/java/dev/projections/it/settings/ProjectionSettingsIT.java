package dev.projections.it.settings;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.Projections;
import dev.projections.config.ProjectionSettings;
import dev.projections.ee.ProjectionRegistry;
import dev.projections.it.support.Await;
import dev.projections.it.support.ConsoleHttp;
import dev.projections.it.support.ConsoleUsers;
import dev.projections.it.support.Deployments;
import dev.projections.it.support.GatedProjection;
import dev.projections.it.support.Rows;
import jakarta.annotation.Resource;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Settings per projection on the real server (docs/guide/configuration.md "Configuration"): {@code projection.<name>.<key>} in the
 * deployment's {@code META-INF/projection.properties} governs that projection's marks alone, the others keep the
 * global value, and the console's projection page shows each value with where it came from.
 */
@ExtendWith(ArquillianExtension.class)
class ProjectionSettingsIT {

    private static final String GATED = GatedProjection.NAME;

    @Deployment
    static EnterpriseArchive deployment() {
        return Deployments.earWithTestsInSecurityDomain("projections", Map.of(
                        "projection.max-attempts", "5",
                        "projection.gated.max-attempts", "1",
                        "projection.gated.batch-size", "5",
                        "projection.retry-delay", "1s", "projection.max-retry-delay", "1s",
                        "projection.sweep-interval", "1s"),
                List.of(GatedProjection.class, dev.projections.it.support.RecordingTenantScope.class,
                        dev.projections.it.support.IdentityProbe.class),
                ProjectionSettingsIT.class, ConsoleUsers.class);
    }

    @Inject
    Projections projections;

    @Inject
    GatedProjection gated;

    @Inject
    ProjectionRegistry registry;

    @Resource(lookup = "java:jboss/datasources/ProjectionDS")
    DataSource dataSource;

    private final String run = UUID.randomUUID().toString().substring(0, 8);

    @Test
    void aProjectionsOwnMaxAttemptsParksItsMarksWhileTheOthersKeepTheGlobalBudget() throws Exception {
        GatedProjection.createTables(dataSource);
        try {
            parksAfterItsOwnBudget();
        } finally {
            gated.reset();
        }
    }

    private void parksAfterItsOwnBudget() throws Exception {
        String poisoned = "own-budget-" + run;
        gated.poison(poisoned);
        projections.markDirty(GATED, List.of(poisoned));

        Rows rows = new Rows(dataSource);
        Await.until("the mark parked after its projection's one attempt", () -> rows.exists(
                "SELECT 1 FROM projection_pending WHERE projection = ? AND entity_id = ? AND attempts = 1"
                        + " AND parked_at IS NOT NULL", GATED, poisoned));

        ProjectionSettings own = registry.settings().of(GATED);
        assertThat(own.maxAttempts()).isEqualTo(1);
        assertThat(own.origins()).containsEntry("max-attempts", "META-INF/projection.properties");
        ProjectionSettings search = registry.settings().of("order-search");
        assertThat(search.maxAttempts()).isEqualTo(5);
        assertThat(search.origins()).containsEntry("max-attempts", "META-INF/projection.properties (global)")
                .containsEntry("rebuild-page-size", "default");
    }

    /**
     * Isolation (docs/guide/configuration.md "Configuration", docs/design.md D45): with every refresh of gated held and a backlog of it
     * due, gated holds its cap of drainers (workers less one, three projections being deployed) and no more, and
     * order-search's marks are refreshed meanwhile by the drainer left.
     */
    @Test
    void aProjectionWhoseRefreshesHoldHasAtMostItsCapOfDrainersAndTheOthersAreRefreshedMeanwhile() throws Exception {
        GatedProjection.createTables(dataSource);
        gated.reset();
        int cap = registry.settings().of(GATED).workers();
        assertThat(cap).as("the default cap: projection.workers (4) less one").isEqualTo(3);
        assertThat(registry.settings().of(GATED).batchSize()).isEqualTo(5);
        Rows rows = new Rows(dataSource);
        java.util.concurrent.CountDownLatch release = gated.holdAll();
        try {
            projections.markDirty(GATED, java.util.stream.IntStream.range(0, 100)
                    .mapToObj(i -> "held-" + run + "-" + i).toList());
            Await.until("gated holding its cap of drainers", () -> gated.running() == cap);

            for (int i = 0; i < 5; i++) {
                String order = Long.toString(9_000_000_000L + i);
                projections.markDirty("order-search", List.of(order));
                Await.until("order-search's mark refreshed while every gated refresh holds", () -> !rows.exists(
                        "SELECT 1 FROM projection_pending WHERE projection = ? AND entity_id = ?", "order-search",
                        order));
            }
            assertThat(gated.peakRunning()).as("never more than its cap").isEqualTo(cap);
        } finally {
            release.countDown();
        }
        try {
            Await.until("gated's backlog refreshed once released", () -> !rows.exists(
                    "SELECT 1 FROM projection_pending WHERE projection = ? AND entity_id LIKE ?", GATED,
                    "held-" + run + "-%"));
            assertThat(gated.peakRunning()).isEqualTo(cap);
        } finally {
            gated.reset();
        }
    }

    @Test
    @RunAsClient
    void theProjectionPageShowsEachSettingInForceWithWhereItCameFrom() throws Exception {
        ConsoleHttp console = new ConsoleHttp();
        console.logIn(ConsoleUsers.VIEWER, ConsoleUsers.VIEWER_PASSWORD);
        String page = console.get("projection.xhtml?name=gated").body();

        assertThat(page).containsPattern("<code>projection\\.gated\\.max-attempts</code></td>\\s*<td><span "
                + "class=\"setting-value\">1</span></td>\\s*<td><span class=\"setting-origin\">"
                + "META-INF/projection\\.properties</span>");
        assertThat(page).containsPattern("<code>projection\\.gated\\.batch-size</code></td>\\s*<td><span "
                + "class=\"setting-value\">5</span></td>\\s*<td><span class=\"setting-origin\">"
                + "META-INF/projection\\.properties</span>");
        assertThat(page).containsPattern("<code>projection\\.gated\\.workers</code></td>\\s*<td><span "
                + "class=\"setting-value\">3</span></td>\\s*<td><span class=\"setting-origin\">"
                + "default \\(projection\\.workers less one: 4 - 1\\)</span>");
        assertThat(page).containsPattern("<code>projection\\.gated\\.rebuild-page-size</code></td>\\s*<td><span "
                + "class=\"setting-value\">5[,.\u00a0 ]?000</span></td>\\s*<td><span class=\"setting-origin\">default</span>");
        assertThat(page).containsPattern("<code>projection\\.sweep-interval</code></td>\\s*<td><span "
                + "class=\"setting-value\">1s</span></td>\\s*<td><span class=\"setting-origin\">"
                + "META-INF/projection\\.properties</span>");
    }

    /** Issue 51 item 5: Verify… is an admin's, and disabled with the reason for a projection that is not Verifiable. */
    @Test
    @RunAsClient
    void theProjectionPageOffersVerifyToAnAdminOnlyAndSaysWhyAProjectionCannotBeVerified() throws Exception {
        ConsoleHttp admin = new ConsoleHttp();
        admin.logIn(ConsoleUsers.ADMIN, ConsoleUsers.ADMIN_PASSWORD);
        String gatedPage = admin.get("projection.xhtml?name=gated").body();
        assertThat(gatedPage).contains("<button type=\"button\" id=\"verify-disabled\" disabled=\"disabled\"")
                .contains("gated cannot be verified: it does not implement dev.projections.Verifiable")
                .doesNotContain("id=\"verify\"");
        assertThat(admin.get("projection.xhtml?name=order-search").body()).contains("id=\"verify\"")
                .contains("index.xhtml?verify=order-search").doesNotContain("verify-disabled");
        assertThat(admin.get("index.xhtml?verify=gated").body()).as("the link's target refuses it too")
                .contains("gated cannot be verified").doesNotContain("id=\"overview:yes\"");

        ConsoleHttp viewer = new ConsoleHttp();
        viewer.logIn(ConsoleUsers.VIEWER, ConsoleUsers.VIEWER_PASSWORD);
        assertThat(viewer.get("projection.xhtml?name=order-search").body()).doesNotContain("id=\"verify\"")
                .doesNotContain("verify-disabled");
        assertThat(viewer.get("index.xhtml?verify=order-search").body()).doesNotContain("id=\"overview:yes\"");
    }
}
