package dev.projections.it.failures;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.projections.Projections;
import dev.projections.ee.admin.ConsoleAdmin;
import dev.projections.it.support.Await;
import dev.projections.it.support.ConsoleUsers;
import dev.projections.it.support.Deployments;
import dev.projections.it.support.GatedProjection;
import dev.projections.it.support.Rows;
import jakarta.annotation.Resource;
import jakarta.ejb.EJB;
import jakarta.inject.Inject;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A projection whose backend is down is suspended on the real server (docs/contract.md §6), not its keys: three
 * keys failing at half the refreshes trip it, the keys not yet tried keep their attempts, probes (one a second)
 * are not held against keys, health lists it and stays 200, and the first probe that succeeds lifts it. An admin
 * suspends by hand with a reason, audited.
 */
@ExtendWith(ArquillianExtension.class)
class SuspensionIT {

    private static final String GATED = GatedProjection.NAME;

    @Deployment
    static EnterpriseArchive deployment() {
        return Deployments.earWithTestsInSecurityDomain("projections", Map.of(
                        "projection.suspend-after-failing-keys", "3", "projection.suspend-failure-percent", "50",
                        "projection.probe-interval", "1s", "projection.sweep-interval", "1s",
                        "projection.retry-delay", "1s", "projection.max-retry-delay", "1s"),
                List.of(GatedProjection.class, dev.projections.it.support.RecordingTenantScope.class,
                        dev.projections.it.support.IdentityProbe.class),
                SuspensionIT.class, ConsoleUsers.class);
    }

    @Inject
    Projections projections;

    @Inject
    GatedProjection gated;

    @Inject
    HttpServletRequest request;

    @EJB
    ConsoleAdmin admin;

    @Resource(lookup = "java:jboss/datasources/ProjectionDS")
    DataSource dataSource;

    @BeforeEach
    void tables() throws Exception {
        GatedProjection.createTables(dataSource);
    }

    @AfterEach
    void cleanUp() throws ServletException {
        request.logout();
        gated.reset();
        projections.resume(GATED);
    }

    @Test
    void anOutageSuspendsTheProjectionKeepsUntriedKeysAttemptsAndAProbeLiftsItWhenTheBackendIsBack() throws Exception {
        String prefix = "outage-" + UUID.randomUUID().toString().substring(0, 8) + "-";
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            ids.add(prefix + i);
        }
        gated.outage(true);
        projections.markDirty(GATED, ids);

        Rows rows = new Rows(dataSource);
        Await.until("the projection suspended", () -> suspendedReason(rows) != null);
        assertThat(suspendedReason(rows)).contains("refreshes in the last minute failed")
                .contains("gated outage: backend unreachable");
        String health = get("/projections/health");
        assertThat(health).contains("\"status\":\"UP\"").contains("\"suspendedProjections\":{\"gated\":");

        // probes run every second while it is down; none is held against a key
        long triedBefore = attempts(rows, prefix);
        Await.until("a probe after the suspension", () -> rows.exists(
                "SELECT 1 FROM projection_control WHERE projection = 'gated' AND probed_at IS NOT NULL"));
        Object firstProbe = rows.one("SELECT probed_at FROM projection_control WHERE projection = 'gated'").get(0);
        Await.until("a second probe", () -> rows.exists(
                "SELECT 1 FROM projection_control WHERE projection = 'gated' AND probed_at > ?", firstProbe));
        assertThat(attempts(rows, prefix)).as("failed probes count no attempt").isEqualTo(triedBefore);
        assertThat(rows.count("SELECT COUNT(*) FROM projection_pending WHERE projection = 'gated' AND entity_id LIKE ?"
                + " AND attempts = 0", prefix + "%")).as("keys never tried keep zero attempts").isPositive();

        gated.outage(false);
        Await.until("the suspension lifted by a probe", () -> suspendedReason(rows) == null);
        Await.until("every key refreshed", () -> rows.count("SELECT COUNT(*) FROM projection_pending"
                + " WHERE projection = 'gated' AND entity_id LIKE ?", prefix + "%") == 0);
    }

    @Test
    void theApplicationsOwnSuspensionAndResumeAreAuditedUnderItsCaller() throws Exception {
        Rows rows = new Rows(dataSource);
        long audited = rows.count("SELECT COALESCE(MAX(id), 0) FROM projection_audit");
        request.login(ConsoleUsers.VIEWER, ConsoleUsers.VIEWER_PASSWORD);

        projections.suspend(GATED, "nightly reindex");
        projections.resume(GATED);

        assertThat(rows.count("SELECT COUNT(*) FROM projection_audit WHERE id > ?", audited)).isEqualTo(2);
        assertThat(rows.one("SELECT user_name, detail FROM projection_audit WHERE id > ? AND action = 'suspend'",
                audited)).containsExactly(ConsoleUsers.VIEWER, "nightly reindex");
        assertThat(rows.one("SELECT user_name, projection FROM projection_audit WHERE id > ? AND action = 'resume'",
                audited)).containsExactly(ConsoleUsers.VIEWER, GATED);
    }

    @Test
    void theApplicationsPauseOutsideATransactionCommitsWithItsAuditRowOrNotAtAll() throws Exception {
        renameAuditTable("projection_audit", "projection_audit_away");
        try {
            assertThatThrownBy(() -> projections.pause(GATED)).as("no audit row, no pause")
                    .isInstanceOf(dev.projections.ops.DatabaseFailure.class).hasMessageContaining("could not pause");
        } finally {
            renameAuditTable("projection_audit_away", "projection_audit");
        }
        assertThat(projections.isPaused(GATED)).as("the pause rolled back with its row").isFalse();
    }

    private void renameAuditTable(String from, String to) throws java.sql.SQLException {
        try (java.sql.Connection connection = dataSource.getConnection();
             java.sql.Statement statement = connection.createStatement()) {
            statement.execute("ALTER TABLE " + from + " RENAME TO " + to);
        }
    }

    @Test
    void anAdminSuspendsByHandWithAReasonAuditedAndAWorkingProbeLiftsIt() throws Exception {
        Rows rows = new Rows(dataSource);
        long audited = rows.count("SELECT COALESCE(MAX(id), 0) FROM projection_audit");
        String id = "manual-" + UUID.randomUUID();
        request.login(ConsoleUsers.ADMIN, ConsoleUsers.ADMIN_PASSWORD);
        gated.outage(true);
        admin.suspend(GATED, "search cluster maintenance");
        assertThat(suspendedReason(rows)).isEqualTo("search cluster maintenance");
        projections.markDirty(GATED, id);
        assertThat(rows.one("SELECT user_name, action, detail FROM projection_audit WHERE id > ? AND action = 'suspend'",
                audited)).containsExactly("admin", "suspend", "search cluster maintenance");

        gated.outage(false);
        Await.until("the suspension lifted by a probe", () -> suspendedReason(rows) == null);
        Await.until("the mark refreshed", () -> !rows.exists(
                "SELECT 1 FROM projection_pending WHERE projection = 'gated' AND entity_id = ?", id));
    }

    private static String suspendedReason(Rows rows) {
        List<List<Object>> found = rows.all("SELECT suspended_reason FROM projection_control WHERE projection = 'gated'"
                + " AND paused AND suspended_reason IS NOT NULL");
        return found.isEmpty() ? null : (String) found.get(0).get(0);
    }

    private static long attempts(Rows rows, String prefix) {
        return rows.count("SELECT COALESCE(SUM(attempts), 0) FROM projection_pending WHERE projection = 'gated'"
                + " AND entity_id LIKE ?", prefix + "%");
    }

    private static String get(String path) {
        try {
            return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:8080" + path))
                    .build(), HttpResponse.BodyHandlers.ofString()).body();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
