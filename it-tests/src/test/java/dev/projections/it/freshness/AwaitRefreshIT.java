package dev.projections.it.freshness;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.CommitCapture;
import dev.projections.MarkKey;
import dev.projections.Projections;
import dev.projections.RefreshToken;
import dev.projections.RefreshWait;
import dev.projections.demo.orders.boundary.OrderService;
import dev.projections.demo.orders.control.ProjectionFaults;
import dev.projections.engine.Foundation;
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
 * Read your writes in the server (docs/contract.md §14), from a bean of the application's WAR in the EAR: the API's
 * capture and wait, the {@code @AwaitRefresh} interceptor on a CDI bean's method (outside its {@code @Transactional}),
 * and the two places it does not wait — inside a transaction, and on an EJB's own method. customer-stats is slowed
 * to 400 ms a key, so a read right after a call that did not wait finds no row.
 */
@ExtendWith(ArquillianExtension.class)
class AwaitRefreshIT {

    private static final Duration SLOW = Duration.ofMillis(400);

    @Deployment
    static EnterpriseArchive deployment() {
        return Deployments.ear(Map.of(), AwaitRefreshIT.class, AwaitingOrders.class, AwaitingOrdersEjb.class);
    }

    @Inject
    Projections projections;

    @Inject
    OrderService orders;

    @Inject
    ProjectionFaults faults;

    @Inject
    AwaitingOrders awaiting;

    @Inject
    AwaitingOrdersEjb awaitingEjb;

    @Inject
    Foundation engine;

    @Resource
    UserTransaction transaction;

    @Resource(lookup = "java:jboss/datasources/ProjectionDS")
    DataSource dataSource;

    @BeforeEach
    void slowCustomerStats() {
        faults.delay("customer-stats", SLOW);
    }

    @AfterEach
    void lift() {
        faults.delay("customer-stats", Duration.ZERO);
    }

    @Test
    void aCaptureCollectsItsThreadsCommitsAndTheWaitEndsOnceBothReadModelsShowThem() {
        String customer = "captured-" + UUID.randomUUID();
        try (CommitCapture capture = projections.captureCommits()) {
            long id = orders.createOrder("", customer, List.of(new OrderService.NewLine("a", 2, BigDecimal.ONE)));

            RefreshWait wait = capture.await(Duration.ofSeconds(20));

            assertThat(wait.result()).isEqualTo(RefreshWait.Result.REFRESHED);
            assertThat(wait.waited()).as("at least one slowed refresh").isGreaterThanOrEqualTo(SLOW);
            assertThat(capture.token().keys()).extracting(MarkKey::projection)
                    .containsExactlyInAnyOrder("order-search", "customer-stats");
            assertThat(orderCount(customer)).isEqualTo(1);
            assertThat(rows().exists("SELECT 1 FROM order_search WHERE order_id = ?", id)).isTrue();
        }
    }

    @Test
    void insideATransactionTheWaitDoesNotWaitAndATimeoutIsAnAnswer() throws Exception {
        RefreshToken token;
        try (CommitCapture capture = projections.captureCommits()) {
            orders.createOrder("", "in-tx-" + UUID.randomUUID(), List.of(new OrderService.NewLine("a", 1, BigDecimal.ONE)));
            token = capture.token();
        }
        transaction.begin();
        try {
            assertThat(projections.await(token, Duration.ofSeconds(20)).result())
                    .isEqualTo(RefreshWait.Result.NOT_WAITED);
        } finally {
            transaction.rollback();
        }
        RefreshWait impatient = projections.await(token, Duration.ofMillis(50));
        assertThat(impatient.result()).as("customer-stats takes 400 ms").isEqualTo(RefreshWait.Result.TIMED_OUT);
        assertThat(impatient.notRefreshed()).extracting(MarkKey::projection).contains("customer-stats");
        assertThat(projections.await(token, Duration.ofSeconds(20)).result()).isEqualTo(RefreshWait.Result.REFRESHED);
    }

    @Test
    void anAnnotatedMethodOfTheApplicationsBeanReturnsOnceItsCommitsAreRefreshed() {
        String customer = "intercepted-" + UUID.randomUUID();
        long refreshedBefore = engine.waits().count(RefreshWait.Result.REFRESHED);

        awaiting.create(customer);

        assertThat(orderCount(customer)).isEqualTo(1);
        assertThat(engine.waits().count(RefreshWait.Result.REFRESHED)).isEqualTo(refreshedBefore + 1);
    }

    @Test
    void theInterceptorWaitsAfterTheCommitOfTheMethodsOwnTransaction() {
        String customer = "transactional-" + UUID.randomUUID();

        awaiting.createTwo(customer);

        assertThat(orderCount(customer)).as("both orders, committed together, refreshed").isEqualTo(2);
    }

    @Test
    void onAnEjbsOwnMethodTheTransactionIsStillOpenSoItDoesNotWait() {
        String customer = "ejb-" + UUID.randomUUID();
        long notWaitedBefore = engine.waits().count(RefreshWait.Result.NOT_WAITED);

        awaitingEjb.create(customer);

        assertThat(engine.waits().count(RefreshWait.Result.NOT_WAITED)).isEqualTo(notWaitedBefore + 1);
        assertThat(orderCount(customer)).as("returned before the slowed refresh").isZero();
    }

    private long orderCount(String customer) {
        List<List<Object>> rows = rows().all("SELECT order_count FROM customer_stats WHERE customer_name = ?", customer);
        return rows.isEmpty() ? 0 : ((Number) rows.get(0).get(0)).longValue();
    }

    private Rows rows() {
        return new Rows(dataSource);
    }
}
