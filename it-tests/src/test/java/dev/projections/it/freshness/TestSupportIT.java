package dev.projections.it.freshness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.projections.IdleWait;
import dev.projections.Projections;
import dev.projections.demo.orders.boundary.OrderService;
import dev.projections.demo.orders.control.ProjectionFaults;
import dev.projections.it.support.Deployments;
import dev.projections.it.support.Rows;
import jakarta.annotation.Resource;
import jakarta.inject.Inject;
import jakarta.transaction.UserTransaction;
import java.math.BigDecimal;
import java.time.Duration;
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
 * The test support an application's own tests use (docs/contract.md §14): {@code awaitIdle} instead of polling the
 * read model, {@code refreshNow} for marks backing off, from an Arquillian test in the server. A retry delay of a
 * minute makes a failed mark wait far longer than any test would.
 */
@ExtendWith(ArquillianExtension.class)
class TestSupportIT {

    @Deployment
    static EnterpriseArchive deployment() {
        return Deployments.ear(Map.of("projection.retry-delay", "1m", "projection.max-retry-delay", "1m"),
                TestSupportIT.class);
    }

    @Inject
    Projections projections;

    @Inject
    OrderService orders;

    @Inject
    ProjectionFaults faults;

    @Resource
    UserTransaction transaction;

    @Resource(lookup = "java:jboss/datasources/ProjectionDS")
    DataSource dataSource;

    /** Marks earlier test classes left (parked ones) would keep every projection busy: a test starts from none. */
    @BeforeEach
    void noMarksLeftByOthers() {
        try (java.sql.Connection connection = dataSource.getConnection();
             java.sql.Statement statement = connection.createStatement()) {
            statement.executeUpdate("DELETE FROM projection_pending");
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @AfterEach
    void lift() {
        faults.delay("customer-stats", Duration.ZERO);
        faults.failAll("customer-stats", false, null);
    }

    @Test
    void awaitIdleReturnsOnceEveryProjectionHasRefreshedWhatWasCommitted() {
        faults.delay("customer-stats", Duration.ofMillis(300));
        String customer = "idle-" + UUID.randomUUID();
        orders.createOrder("", customer, List.of(new OrderService.NewLine("a", 3, BigDecimal.ONE)));

        IdleWait idle = projections.awaitIdle(Duration.ofSeconds(30));

        assertThat(idle.idle()).as("%s", idle).isTrue();
        assertThat(idle.pending()).containsOnlyKeys(projections.names()).allSatisfy((name, count) -> assertThat(count).isZero());
        assertThat(orderCount(customer)).isEqualTo(1);
    }

    @Test
    void aMarkBackingOffKeepsItBusyUntilRefreshNowMakesItDue() {
        faults.failAll("customer-stats", true, "down for the test");
        String customer = "backing-off-" + UUID.randomUUID();
        orders.createOrder("", customer, List.of(new OrderService.NewLine("a", 1, BigDecimal.ONE)));

        IdleWait busy = projections.awaitIdle(Duration.ofSeconds(2), "customer-stats");

        assertThat(busy.idle()).isFalse();
        assertThat(busy.failing().get("customer-stats")).as("what the test is told: %s", busy).isPositive();
        assertThat(projections.awaitIdle(Duration.ofSeconds(30), "order-search").idle()).as("the other one").isTrue();

        faults.failAll("customer-stats", false, null);
        assertThat(projections.refreshNow("customer-stats")).isPositive();
        assertThat(projections.awaitIdle(Duration.ofSeconds(30), "customer-stats").idle()).isTrue();
        assertThat(orderCount(customer)).isEqualTo(1);
    }

    @Test
    void badCallsNameWhatIsWrong() throws Exception {
        assertThatThrownBy(() -> projections.awaitIdle(Duration.ofSeconds(1), "no-such"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no-such");
        assertThatThrownBy(() -> projections.refreshNow("no-such"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no-such");
        assertThatThrownBy(() -> projections.awaitIdle(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("-1");
        transaction.begin();
        try {
            assertThatThrownBy(() -> projections.awaitIdle(Duration.ofSeconds(1)))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("outside a transaction");
        } finally {
            transaction.rollback();
        }
    }

    private long orderCount(String customer) {
        List<List<Object>> rows = new Rows(dataSource).all(
                "SELECT order_count FROM customer_stats WHERE customer_name = ?", customer);
        return rows.isEmpty() ? 0 : ((Number) rows.get(0).get(0)).longValue();
    }
}
