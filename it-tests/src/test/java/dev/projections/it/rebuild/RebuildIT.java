package dev.projections.it.rebuild;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.projections.Projections;
import dev.projections.RebuildProgress;
import dev.projections.demo.orders.entity.Order;
import dev.projections.it.support.Await;
import dev.projections.it.support.Deployments;
import dev.projections.it.support.GatedProjection;
import dev.projections.it.support.IdentityProbe;
import dev.projections.it.support.RecordingTenantScope;
import dev.projections.it.support.Rows;
import dev.projections.it.support.Series;
import jakarta.annotation.Resource;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.UserTransaction;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Background rebuilds (docs/contract.md §7) of the demo's read models, from write tables filled with plain SQL. */
@ExtendWith(ArquillianExtension.class)
class RebuildIT {

    private static final int SEEDED = 100_000;
    private static final long FIRST = 500_000_001L;

    @Deployment
    static EnterpriseArchive deployment() {
        return Deployments.ear(Map.of("projection.sweep-interval", "1s"),
                List.of(GatedProjection.class, RecordingTenantScope.class, IdentityProbe.class, Series.class), RebuildIT.class);
    }

    @PersistenceContext(unitName = "demo")
    EntityManager em;

    @Resource
    UserTransaction transaction;

    @Resource(lookup = "java:jboss/datasources/ProjectionDS")
    DataSource dataSource;

    @Inject
    Projections projections;

    @Test
    void aRebuildOfAHundredThousandOrdersDrainsWithLiveChangesRefreshedAheadOfIt() throws Exception {
        seedOrdersWithPlainSql(); // bypasses marking, as a bulk load or a database restore would
        Rows rows = new Rows(dataSource);
        assertThat(rows.count("SELECT COUNT(*) FROM order_search WHERE order_id >= ?", FIRST)).isZero();

        String runId = projections.rebuild("order-search", "");
        long live = FIRST + 77_777;
        transaction.begin();
        em.find(Order.class, live).setStatus("LIVE-CHANGE");
        transaction.commit();
        AtomicReference<RebuildProgress> whenLiveWasRefreshed = new AtomicReference<>();
        Await.until("the live change refreshed", Duration.ofMinutes(2), () -> {
            whenLiveWasRefreshed.set(projections.rebuildProgress(runId));
            return rows.exists("SELECT 1 FROM order_search WHERE order_id = ? AND status = 'LIVE-CHANGE'", live);
        });
        assertThat(whenLiveWasRefreshed.get().state()).as("refreshed while the rebuild still ran")
                .isEqualTo(RebuildProgress.RUNNING);

        Await.until("the rebuild to finish", Duration.ofMinutes(10), () -> projections.rebuildProgress(runId).finished());
        RebuildProgress done = projections.rebuildProgress(runId);
        assertThat(done.marked()).isGreaterThanOrEqualTo(SEEDED);
        assertThat(done.remaining()).isZero();
        assertThat(done.finishedAt()).isAfter(done.startedAt());
        assertThat(done.ratePerSecond()).isPositive();
        assertThat(rows.count("""
                SELECT COUNT(*) FROM orders o
                  LEFT JOIN order_search s ON s.order_id = o.id
                  LEFT JOIN (SELECT order_id, COUNT(*) AS n, SUM(quantity * price) AS total
                               FROM order_line GROUP BY order_id) l ON l.order_id = o.id
                 WHERE s.order_id IS NULL OR s.status <> o.status OR s.source_version <> o.version
                    OR s.line_count <> COALESCE(l.n, 0) OR s.total <> COALESCE(l.total, 0)""")).as("wrong rows").isZero();
        assertThat(projections.latestRebuild("order-search")).hasValueSatisfying(
                latest -> assertThat(latest.runId()).isEqualTo(runId));
    }

    @Test
    void aSecondRebuildOfTheSameProjectionAndTenantIsRefusedNamingTheRunningOne() {
        String runId = projections.rebuild("customer-stats", "tenant-x");
        try {
            assertThatThrownBy(() -> projections.rebuild("customer-stats", "tenant-x"))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("already running").hasMessageContaining(runId);
        } finally {
            Await.until("the first rebuild to finish", Duration.ofMinutes(2),
                    () -> projections.rebuildProgress(runId).finished());
        }
        String second = projections.rebuild("customer-stats", "tenant-x");
        assertThat(second).isNotEqualTo(runId);
        Await.until("the second rebuild to finish", Duration.ofMinutes(2),
                () -> projections.rebuildProgress(second).finished());
    }

    @Test
    void rebuildAllTenantsStartsOneRunPerTenantOfTheDirectory() throws Exception {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("INSERT INTO customer (id, tenant_id, name) VALUES (900000001, 'tenant-a', 'a'), "
                    + "(900000002, 'tenant-b', 'b')");
        }
        List<String> tenants = new Rows(dataSource).all("SELECT DISTINCT tenant_id FROM customer ORDER BY tenant_id")
                .stream().map(row -> (String) row.get(0)).toList();
        List<String> runs = projections.rebuildAllTenants("customer-stats");
        assertThat(runs).hasSize(tenants.size());
        assertThat(runs.stream().map(projections::rebuildProgress).map(RebuildProgress::tenant))
                .containsExactlyInAnyOrderElementsOf(tenants);
        Await.until("every tenant's run to finish", Duration.ofMinutes(3),
                () -> runs.stream().allMatch(run -> projections.rebuildProgress(run).finished()));
    }

    @Test
    void aProjectionWithoutIdsCannotBeRebuiltAndIsToldWhy() {
        assertThatThrownBy(() -> projections.rebuild(GatedProjection.NAME, ""))
                .isInstanceOf(UnsupportedOperationException.class).hasMessageContaining("implement Projection.ids");
        assertThatThrownBy(() -> projections.rebuildProgress("no-such-run"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no-such-run");
    }

    private void seedOrdersWithPlainSql() throws Exception {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("""
                    INSERT INTO customer (id, tenant_id, name)
                    SELECT %d + g, '', CONCAT('rebuild-customer-', g) FROM %s""".formatted(FIRST, Series.upTo(999)));
            statement.execute("""
                    INSERT INTO orders (id, tenant_id, customer_id, status, version)
                    SELECT %d + g, '', %d + (g %% 1000), 'NEW', 0 FROM %s"""
                    .formatted(FIRST, FIRST, Series.upTo(SEEDED - 1)));
            statement.execute("""
                    INSERT INTO order_line (id, order_id, sku, quantity, price)
                    SELECT %d + g, %d + g, 'sku', 1 + g %% 5, 2.50 FROM %s"""
                    .formatted(FIRST, FIRST, Series.upTo(SEEDED - 1)));
            // as autovacuum's analyze would soon after a bulk load: the class starts from fresh tables, and this
            // machine's PostgreSQL runs without autovacuum (docs/pitfalls.md #29)
            boolean mariadb = connection.getMetaData().getDatabaseProductName().toLowerCase().contains("maria");
            statement.execute((mariadb ? "ANALYZE TABLE " : "ANALYZE ") + "customer, orders, order_line");
        }
    }
}
