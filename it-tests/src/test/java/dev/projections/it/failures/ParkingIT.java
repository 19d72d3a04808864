package dev.projections.it.failures;

import dev.projections.engine.Foundation;
import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.ParkedSelection;
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
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Failures beyond retry on the real server (docs/contract.md §6): a mark is parked after max-attempts failures, or
 * at once for a non-retryable one, stays parked, and an admin resumes or skips it — each action audited under the
 * admin's name, a skipped key with its error. The sweep runs every second and retries after a second, so the
 * budget is spent by the engine itself.
 */
@ExtendWith(ArquillianExtension.class)
class ParkingIT {

    private static final String GATED = GatedProjection.NAME;

    @Deployment
    static EnterpriseArchive deployment() {
        return Deployments.earWithTestsInSecurityDomain("projections", Map.of("projection.max-attempts", "2",
                        "projection.retry-delay", "1s", "projection.max-retry-delay", "1s",
                        "projection.sweep-interval", "1s"),
                List.of(GatedProjection.class, dev.projections.it.support.RecordingTenantScope.class,
                        dev.projections.it.support.IdentityProbe.class),
                ParkingIT.class, ConsoleUsers.class);
    }

    @Inject
    Projections projections;

    @Inject
    GatedProjection gated;

    @Inject
    Foundation engine;

    @Inject
    HttpServletRequest request;

    @EJB
    ConsoleAdmin admin;

    @Resource(lookup = "java:jboss/datasources/ProjectionDS")
    DataSource dataSource;

    private final String run = UUID.randomUUID().toString().substring(0, 8);

    @BeforeEach
    void tables() throws Exception {
        GatedProjection.createTables(dataSource);
    }

    @AfterEach
    void cleanUp() throws ServletException {
        request.logout();
        gated.reset();
    }

    @Test
    void aMarkIsParkedAfterMaxAttemptsFailuresAndANonRetryableOneAtOnce() throws Exception {
        String budget = "budget-" + run;
        String once = "once-" + run;
        gated.poison(budget);
        gated.failForGood(once);
        projections.markDirty(GATED, List.of(budget, once));

        Rows rows = new Rows(dataSource);
        Await.until("both marks parked", () -> parked(rows, budget) && parked(rows, once));
        assertThat(rows.one("SELECT attempts, last_error FROM projection_pending WHERE projection = ? AND entity_id = ?",
                GATED, budget)).containsExactly(2, "java.lang.IllegalStateException: gated failure of " + budget);
        assertThat(rows.one("SELECT attempts, last_error FROM projection_pending WHERE projection = ? AND entity_id = ?",
                GATED, once)).containsExactly(1,
                "dev.projections.NonRetryableRefreshException: gated non-retryable failure of " + once);
        assertThat(projections.parked(GATED)).isGreaterThanOrEqualTo(2);

        // parked marks are out of every claim: further sweeps (one a second) leave them alone
        int calls = gated.calls(budget).size();
        java.time.Instant parkedSeen = java.time.Instant.now();
        Await.until("two sweeps after it was parked", () -> engine.stats().lastSweepAt() != null
                && engine.stats().lastSweepAt().isAfter(parkedSeen.plusSeconds(2)));
        assertThat(gated.calls(budget)).as("no refresh since it was parked").hasSize(calls);
        Pattern gauge = Pattern.compile("projection_parked\\{projection=\"gated\"[^}]*} [1-9]");
        Await.until("the parked gauge", () -> gauge.matcher(metrics()).find());
        assertThat(parked(rows, budget)).isTrue();
    }

    @Test
    void anAdminResumesOneParkedMarkAndSkipsAnotherAndTheAuditKeepsNameKeyAndError() throws Exception {
        String fixed = "fixed-" + run;
        String hopeless = "hopeless-" + run;
        gated.failForGood(fixed);
        gated.failForGood(hopeless);
        projections.markDirty(GATED, List.of(fixed, hopeless));
        Rows rows = new Rows(dataSource);
        Await.until("both marks parked", () -> parked(rows, fixed) && parked(rows, hopeless));
        long audited = rows.count("SELECT COALESCE(MAX(id), 0) FROM projection_audit");

        request.login(ConsoleUsers.ADMIN, ConsoleUsers.ADMIN_PASSWORD);
        gated.cure(fixed);
        assertThat(admin.resumeParked(ParkedSelection.mark(GATED, "", fixed))).isEqualTo(1);
        Await.until("the resumed mark refreshed", () -> !rows.exists(
                "SELECT 1 FROM projection_pending WHERE projection = ? AND entity_id = ?", GATED, fixed));

        assertThat(admin.skipParked(ParkedSelection.mark(GATED, "", hopeless))).isEqualTo(1);
        assertThat(rows.exists("SELECT 1 FROM projection_pending WHERE projection = ? AND entity_id = ?", GATED, hopeless))
                .isFalse();

        assertThat(rows.one("SELECT user_name, action, entity_id FROM projection_audit WHERE id > ? AND action = 'resume-parked'",
                audited)).containsExactly("admin", "resume-parked", fixed);
        assertThat(rows.one("SELECT user_name, action, entity_id, detail FROM projection_audit WHERE id > ?"
                + " AND action = 'skip-parked'", audited)).containsExactly("admin", "skip-parked", hopeless,
                "after 1 attempts: dev.projections.NonRetryableRefreshException: gated non-retryable failure of " + hopeless);
    }

    @Test
    void resumingByErrorPrefixTouchesOnlyTheMarksWhoseErrorStartsSo() throws Exception {
        String prefix = "bulk-" + run + "-";
        String other = "other-" + run;
        gated.failForGood(prefix + "a");
        gated.failForGood(prefix + "b");
        gated.failForGood(other);
        projections.markDirty(GATED, List.of(prefix + "a", prefix + "b", other));
        Rows rows = new Rows(dataSource);
        Await.until("three marks parked", () -> parked(rows, prefix + "a") && parked(rows, prefix + "b")
                && parked(rows, other));
        gated.cure(prefix + "a");
        gated.cure(prefix + "b");

        request.login(ConsoleUsers.ADMIN, ConsoleUsers.ADMIN_PASSWORD);
        assertThat(admin.resumeParked(ParkedSelection.withErrorStartingWith(GATED,
                "dev.projections.NonRetryableRefreshException: gated non-retryable failure of " + prefix))).isEqualTo(2);
        Await.until("the two resumed marks refreshed", () -> rows.count(
                "SELECT COUNT(*) FROM projection_pending WHERE projection = ? AND entity_id LIKE ?", GATED, prefix + "%") == 0);
        assertThat(parked(rows, other)).isTrue();
        assertThat(rows.one("SELECT detail FROM projection_audit WHERE action = 'resume-parked' ORDER BY id DESC"
                + " FETCH FIRST 1 ROWS ONLY").get(0).toString()).startsWith("2 marks with error");
    }

    private static boolean parked(Rows rows, String id) {
        return rows.exists("SELECT 1 FROM projection_pending WHERE projection = ? AND entity_id = ? AND parked_at IS NOT NULL",
                GATED, id);
    }

    private static String metrics() {
        try {
            return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build().send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:8080/projections/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
