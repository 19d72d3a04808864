package dev.projections.it.rebuild;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.projections.Projections;
import dev.projections.RebuildProgress;
import dev.projections.RebuildScope;
import dev.projections.it.support.Await;
import dev.projections.it.support.Deployments;
import dev.projections.it.support.HeldRebuildProjection;
import dev.projections.it.support.RecordingTenantScope;
import dev.projections.it.support.Rows;
import dev.projections.it.support.Series;
import jakarta.annotation.Resource;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Scoped, partitioned and cancelled rebuild runs (docs/contract.md §7) of the demo's order-search (id range and
 * status filter) and of a test projection whose refreshes the test holds. Each test works in a tenant of its own.
 */
@ExtendWith(ArquillianExtension.class)
class ScopedRebuildIT {

    /*
     * The held projection's refreshes are short until a test holds them, so its rebuild batches would go in one
     * transaction (docs/design.md D59), where a claim is a row lock nobody else sees and a held batch is rolled back at
     * its transaction's bound. These tests are about claims the ordinary path commits (a cancel leaves them to their
     * ack), so the held projection keeps its two transactions; OneTransactionRefreshContract covers a cancel beside a
     * batch in one transaction.
     */
    @Deployment
    static EnterpriseArchive deployment() {
        return Deployments.ear(Map.of("projection.sweep-interval", "1s", "projection.rebuild-page-size", "500",
                        "projection." + HeldRebuildProjection.NAME + ".one-transaction", "false"),
                List.of(RecordingTenantScope.class, HeldRebuildProjection.class, Series.class), ScopedRebuildIT.class);
    }

    @Resource(lookup = "java:jboss/datasources/ProjectionDS")
    DataSource dataSource;

    @Inject
    Projections projections;

    @Inject
    HeldRebuildProjection held;

    @Resource
    jakarta.transaction.UserTransaction transaction;

    @Test
    void aScopedRunMarksExactlyTheIdsOfItsScope() throws Exception {
        long first = 810_000_000L;
        // 1,000 orders: even offsets NEW, odd ones SHIPPED
        seed("scoped", first, 999, 1, "CASE WHEN g % 2 = 0 THEN 'NEW' ELSE 'SHIPPED' END");
        RebuildScope scope = new RebuildScope(String.valueOf(first + 100), String.valueOf(first + 299), null, "status=NEW");

        String runId = projections.rebuild("order-search", "scoped", scope, 1);
        Await.until("the scoped run to finish", Duration.ofMinutes(2), () -> projections.rebuildProgress(runId).finished());

        RebuildProgress done = projections.rebuildProgress(runId);
        assertThat(done.marked()).as("the NEW orders from offset 100 to 299").isEqualTo(100);
        assertThat(done.scope()).isEqualTo(scope);
        List<Long> refreshed = new Rows(dataSource).all(
                "SELECT order_id FROM order_search WHERE tenant_id = 'scoped' ORDER BY order_id").stream()
                .map(row -> ((Number) row.get(0)).longValue()).toList();
        assertThat(refreshed).hasSize(100).allMatch(id -> id >= first + 100 && id <= first + 299 && (id - first) % 2 == 0);
        assertThat(new Rows(dataSource).one("SELECT action, tenant_id, detail FROM projection_audit WHERE detail LIKE ?",
                "%run " + runId)).as("the application's start is audited as the console's is")
                .containsExactly("rebuild", "scoped", scope + ", run " + runId);
    }

    @Test
    void aScopeOrPartitioningTheProjectionDoesNotSupportIsRefusedNamingWhatItSupports() {
        assertThatThrownBy(() -> projections.rebuild("order-search", "", RebuildScope.changedSince(Instant.now()), 1))
                .isInstanceOf(UnsupportedOperationException.class).hasMessageContaining("CHANGED_SINCE")
                .hasMessageContaining("ID_RANGE");
        assertThatThrownBy(() -> projections.rebuild("order-search", "", RebuildScope.filter("region", "EU"), 1))
                .isInstanceOf(UnsupportedOperationException.class).hasMessageContaining("filter \"region\"")
                .hasMessageContaining("[status]");
        assertThatThrownBy(() -> projections.rebuild("customer-stats", "", RebuildScope.everything(), 4))
                .isInstanceOf(UnsupportedOperationException.class).hasMessageContaining("partitions")
                .hasMessageContaining("whole rebuilds only");
        assertThatThrownBy(() -> projections.rebuild("order-search", "", RebuildScope.everything(), 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("partitions must be 1..64, was 0");
        assertThatThrownBy(() -> projections.cancelRebuild("no-such-run"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no-such-run");
    }

    @Test
    void aPartitionedRunCoversEveryIdOnceIncludingIdsAddedWhileItRan() throws Exception {
        long first = 820_000_000L;
        seed("parts", first, 3999, 2, "'NEW'"); // ids first, first + 2, …, first + 7998
        projections.pause("order-search"); // no step runs until the ids below are added
        String runId;
        try {
            runId = projections.rebuild("order-search", "parts", RebuildScope.everything(), 4);
            assertThat(projections.rebuildProgress(runId).partitions()).isEqualTo(4);
            // below the first bound, inside two partitions' ranges, above the last bound
            execute("INSERT INTO orders (id, tenant_id, customer_id, status, version) VALUES "
                    + "(%d, 'parts', %d, 'NEW', 0), (%d, 'parts', %d, 'NEW', 0), (%d, 'parts', %d, 'NEW', 0), (%d, 'parts', %d, 'NEW', 0)"
                    .formatted(first - 1, first, first + 3001, first, first + 5001, first, first + 9000, first));
        } finally {
            projections.resume("order-search");
        }
        Await.until("the partitioned run to finish", Duration.ofMinutes(3), () -> projections.rebuildProgress(runId).finished());

        RebuildProgress done = projections.rebuildProgress(runId);
        Rows rows = new Rows(dataSource);
        long orders = rows.count("SELECT COUNT(*) FROM orders WHERE tenant_id = 'parts'");
        assertThat(orders).isEqualTo(4004);
        assertThat(done.marked()).as("each id once: no partition overlaps another").isEqualTo(orders);
        assertThat(done.partitionsDone()).isEqualTo(4);
        assertThat(rows.count("""
                SELECT COUNT(*) FROM orders o LEFT JOIN order_search s ON s.order_id = o.id
                 WHERE o.tenant_id = 'parts' AND s.order_id IS NULL""")).as("no gap between partitions").isZero();
    }

    @Test
    void aCancelledRunLosesItsWaitingRebuildMarksWhileALiveChangeOfTheSameIdStays() throws Exception {
        held.hold();
        String runId;
        Rows rows = new Rows(dataSource);
        try {
            runId = projections.rebuild(HeldRebuildProjection.NAME, "");
            Await.until("a page marked", () -> rebuildMarks(rows) >= 100);
            String live = HeldRebuildProjection.IDS.get(1); // marked by the first page
            projections.markDirty(HeldRebuildProjection.NAME, live);

            projections.cancelRebuild(runId);
            assertThatThrownBy(() -> projections.cancelRebuild(runId)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("CANCELLED");
            // the marks the held refreshes claimed stay until their ack; every other rebuild mark goes
            Await.until("its waiting rebuild marks deleted", () -> rows.count("SELECT COUNT(*) FROM projection_pending"
                    + " WHERE projection = ? AND priority = 1 AND claim_token IS NULL", HeldRebuildProjection.NAME) == 0);
            assertThat(rows.count("SELECT COUNT(*) FROM projection_rebuild WHERE run_id = ? AND running_projection IS NOT NULL",
                    runId)).as("its tenant stays reserved while claimed marks of it are refreshed").isEqualTo(1);

            RebuildProgress cancelled = projections.rebuildProgress(runId);
            assertThat(cancelled.state()).isEqualTo(RebuildProgress.CANCELLED);
            assertThat(cancelled.cancelledBy()).isNotBlank();
            assertThat(rows.count("SELECT COUNT(*) FROM projection_pending WHERE projection = ? AND entity_id = ? AND priority = 0",
                    HeldRebuildProjection.NAME, live)).as("the live change's mark stays").isEqualTo(1);
            assertThat(projections.rebuildHistory(HeldRebuildProjection.NAME, 10)).extracting(RebuildProgress::runId)
                    .startsWith(runId);
        } finally {
            held.release();
        }
        Await.until("the live mark refreshed", () -> projections.pending(HeldRebuildProjection.NAME) == 0);
        Await.until("the tenant free for a new run", () -> rows.count("SELECT COUNT(*) FROM projection_rebuild"
                + " WHERE run_id = ? AND running_projection IS NULL", runId) == 1);
        assertThat(held.refreshed()).contains(HeldRebuildProjection.IDS.get(1));
        assertThat(held.refreshed()).as("the cancelled run's later pages were never marked")
                .doesNotContain(HeldRebuildProjection.IDS.get(2999));
    }

    @Test
    void aCancelInsideTheApplicationsTransactionCommitsOnItsOwnAndHoldsNoRunRowWhileTheApplicationGoesOn()
            throws Exception {
        // a step takes its page's pending rows, then the run's row; a cancel that held the run's row in the
        // application's transaction, which then marks keys at its commit, could wait for that step in a cycle
        held.hold();
        String runId;
        Rows rows = new Rows(dataSource);
        try {
            runId = projections.rebuild(HeldRebuildProjection.NAME, "");
            Await.until("a page marked", () -> rebuildMarks(rows) >= 100);
            transaction.begin();
            try {
                projections.cancelRebuild(runId);
                // from outside the application's transaction: the cancel committed already, so its lock on the run's
                // row is gone too (a purge may hold the row for a moment now: the state is read without a lock)
                String state = java.util.concurrent.CompletableFuture.supplyAsync(() -> committedState(runId))
                        .get(30, java.util.concurrent.TimeUnit.SECONDS);
                assertThat(state).isEqualTo(RebuildProgress.CANCELLED);
                projections.markDirty(HeldRebuildProjection.NAME, HeldRebuildProjection.IDS.get(5));
            } finally {
                transaction.commit();
            }
        } finally {
            held.release();
        }
        Await.until("the tenant free for a new run", () -> rows.count("SELECT COUNT(*) FROM projection_rebuild"
                + " WHERE run_id = ? AND running_projection IS NULL", runId) == 1);
        Await.until("the application's mark refreshed", () -> projections.pending(HeldRebuildProjection.NAME) == 0);
    }

    @Test
    void aRunStartedInTheApplicationsTransactionCannotBeCancelledInItAndTheErrorSaysWhen() throws Exception {
        String runId;
        transaction.begin();
        try {
            runId = projections.rebuild("order-search", "same-transaction");
            String started = runId;
            assertThatThrownBy(() -> projections.cancelRebuild(started)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining(started).hasMessageContaining("started in this transaction");
        } finally {
            transaction.commit();
        }
        Await.until("the run, committed with the transaction, finished", Duration.ofMinutes(1),
                () -> projections.rebuildProgress(runId).finished());
    }

    /** The run's state as another transaction sees it: what has committed. */
    private String committedState(String runId) {
        try (Connection connection = dataSource.getConnection();
             java.sql.PreparedStatement select = connection.prepareStatement(
                     "SELECT state FROM projection_rebuild WHERE run_id = ?")) {
            select.setString(1, runId);
            try (java.sql.ResultSet result = select.executeQuery()) {
                result.next();
                return result.getString(1);
            }
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException("could not read run " + runId + ": " + e.getMessage(), e);
        }
    }

    private long rebuildMarks(Rows rows) {
        return rows.count("SELECT COUNT(*) FROM projection_pending WHERE projection = ? AND priority = 1",
                HeldRebuildProjection.NAME);
    }

    /** {@code count + 1} orders of {@code tenant} from id {@code first}, {@code step} apart, with one customer. */
    private void seed(String tenant, long first, int last, int step, String status) throws Exception {
        execute("INSERT INTO customer (id, tenant_id, name) VALUES (%d, '%s', 'c')".formatted(first, tenant));
        execute("INSERT INTO orders (id, tenant_id, customer_id, status, version) SELECT %d + %d * g, '%s', %d, %s, 0 FROM %s"
                .formatted(first, step, tenant, first, status, Series.upTo(last)));
    }

    private void execute(String sql) throws Exception {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }
}
