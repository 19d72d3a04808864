package dev.projections.it.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.projections.ee.admin.ConsoleAdmin;
import dev.projections.ee.admin.ConsoleReads;
import dev.projections.inspect.AuditEntry;
import dev.projections.inspect.MarkFilter;
import dev.projections.it.support.ConsoleUsers;
import dev.projections.it.support.Deployments;
import jakarta.ejb.EJB;
import jakarta.ejb.EJBAccessException;
import jakarta.inject.Inject;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import java.util.List;
import java.util.Map;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The console's security at the EJB boundary (docs/contract.md §12), not only on the page: the test logs in through the
 * container ({@code HttpServletRequest.login}, security domain "projections", as the console does) and calls
 * the admin bean directly. A page-level forged POST could pass for the wrong reason (Faces ignores unrendered
 * buttons, docs/pitfalls.md #16); these calls cannot.
 */
@ExtendWith(ArquillianExtension.class)
class AdminBoundaryIT {

    private static final String PROJECTION = "order-search";

    @Deployment
    static EnterpriseArchive deployment() {
        return Deployments.earWithTestsInSecurityDomain("projections", Map.of("projection.auto-refresh", "false"),
                AdminBoundaryIT.class, ConsoleUsers.class);
    }

    @Inject
    HttpServletRequest request;

    @EJB
    ConsoleAdmin admin;

    @EJB
    ConsoleReads reads;

    @jakarta.annotation.Resource(lookup = "java:jboss/datasources/ProjectionDS")
    javax.sql.DataSource dataSource;

    @AfterEach
    void logOut() throws ServletException {
        request.logout();
    }

    /** Every action of the admin bean, with arguments that would succeed for an admin or fail on their own. */
    private List<ThrowingCallable> everyAction() {
        return List.of(
                () -> admin.retry(PROJECTION, "", "1"),
                () -> admin.retryFailed(PROJECTION),
                () -> admin.retryFailed(PROJECTION, "", "Timeout"),
                () -> admin.rebuild(PROJECTION, ""),
                () -> admin.rebuildAllTenants(PROJECTION),
                () -> admin.rebuild(PROJECTION, "", dev.projections.RebuildScope.idRange("1", "2"), 2),
                () -> admin.cancelRebuild("no-such-run"),
                () -> admin.clearAndRebuild("customer-stats", null),
                () -> admin.clearAndRebuildTenant("customer-stats", ""),
                () -> admin.pause(PROJECTION),
                () -> admin.resume(PROJECTION),
                () -> admin.purge("retired-projection"),
                () -> admin.resumeParked(dev.projections.ParkedSelection.all(PROJECTION)),
                () -> admin.suspend(PROJECTION, "by a test"),
                () -> admin.skipParked(dev.projections.ParkedSelection.all(PROJECTION)));
    }

    @Test
    void aViewerGetsEjbAccessExceptionFromEveryActionAndNothingIsDoneOrAudited() throws Exception {
        request.login(ConsoleUsers.VIEWER, ConsoleUsers.VIEWER_PASSWORD);
        assertThat(request.isUserInRole("projection-viewer")).isTrue();
        long audited = newestAuditId();
        // what an earlier class's failures may have left suspended on this database is not the viewer's doing
        java.util.Set<String> pausedBefore = pausedProjections();

        for (ThrowingCallable action : everyAction()) {
            assertThatThrownBy(action).isInstanceOf(EJBAccessException.class);
        }
        assertThat(newestAuditId()).as("nothing audited").isEqualTo(audited);
        assertThat(pausedBefore).containsAll(pausedProjections());
    }

    private java.util.Set<String> pausedProjections() {
        return reads.overview().stream().filter(status -> status.paused())
                .map(status -> status.projection()).collect(java.util.stream.Collectors.toSet());
    }

    @Test
    void anAnonymousCallerIsRefusedActionsAndReads() {
        for (ThrowingCallable action : everyAction()) {
            assertThatThrownBy(action).isInstanceOf(EJBAccessException.class);
        }
        assertThatThrownBy(() -> reads.overview()).isInstanceOf(EJBAccessException.class);
        assertThatThrownBy(() -> reads.page(MarkFilter.pending(PROJECTION), null, true, 10))
                .isInstanceOf(EJBAccessException.class);
    }

    @Test
    void anAdminActsAndTheAuditLogNamesThemInOrder() throws Exception {
        request.login(ConsoleUsers.ADMIN, ConsoleUsers.ADMIN_PASSWORD);
        admin.pause(PROJECTION);
        assertThat(reads.overview()).filteredOn(status -> status.projection().equals(PROJECTION))
                .singleElement().matches(status -> status.paused());
        admin.resume(PROJECTION);

        List<AuditEntry> latest = reads.audit(null, 2);
        assertThat(latest).extracting(AuditEntry::action).containsExactly("resume", "pause");
        assertThat(latest).extracting(AuditEntry::user).containsOnly(ConsoleUsers.ADMIN);
        assertThat(latest).extracting(AuditEntry::projection).containsOnly(PROJECTION);
    }

    @Test
    void clearAndRebuildClearsOnlyTheChosenTenantInsideItsTenantScope() throws Exception {
        try (java.sql.Connection connection = dataSource.getConnection();
             java.sql.Statement statement = connection.createStatement()) {
            statement.execute("DELETE FROM customer_stats WHERE customer_id IN (990001, 990002)");
            statement.execute("INSERT INTO customer_stats (customer_id, tenant_id, customer_name, order_count, total_amount)"
                    + " VALUES (990001, 'clear-a', 'a', 1, 1), (990002, 'clear-b', 'b', 1, 1)");
        }
        request.login(ConsoleUsers.ADMIN, ConsoleUsers.ADMIN_PASSWORD);
        List<String> runs = admin.clearAndRebuild("customer-stats", "clear-a");

        assertThat(runs).hasSize(1);
        assertThat(count("SELECT COUNT(*) FROM customer_stats WHERE customer_id = 990001")).as("tenant cleared").isZero();
        assertThat(count("SELECT COUNT(*) FROM customer_stats WHERE customer_id = 990002")).as("other tenant kept")
                .isEqualTo(1);
        assertThat(reads.rebuildProgress(runs.get(0)).tenant()).isEqualTo("clear-a");
        AuditEntry newest = reads.audit(null, 1).get(0);
        assertThat(newest.action()).isEqualTo("clear-and-rebuild");
        assertThat(newest.tenant()).isEqualTo("clear-a");
        assertThat(newest.user()).isEqualTo(ConsoleUsers.ADMIN);
    }

    private long count(String sql) throws java.sql.SQLException {
        try (java.sql.Connection connection = dataSource.getConnection();
             java.sql.Statement statement = connection.createStatement();
             java.sql.ResultSet rows = statement.executeQuery(sql)) {
            rows.next();
            return rows.getLong(1);
        }
    }

    @Test
    void aRefusedActionReachesTheAdminWithItsReasonAndLeavesNoAudit() throws Exception {
        request.login(ConsoleUsers.ADMIN, ConsoleUsers.ADMIN_PASSWORD);
        long audited = newestAuditId();
        assertThatThrownBy(() -> admin.retry(PROJECTION, "", "no-such-mark"))
                .hasMessageContaining("no failing mark").hasMessageContaining("no-such-mark");
        assertThatThrownBy(() -> admin.pause("no-such-projection")).hasMessageContaining("no-such-projection");
        assertThatThrownBy(() -> admin.purge(PROJECTION)).hasMessageContaining("is deployed here");
        assertThatThrownBy(() -> admin.clearAndRebuild(PROJECTION, "")).hasMessageContaining("does not offer clear()");
        assertThat(newestAuditId()).as("nothing audited").isEqualTo(audited);
    }

    private long newestAuditId() {
        return reads.audit(null, 1).stream().mapToLong(AuditEntry::id).findFirst().orElse(0);
    }
}
