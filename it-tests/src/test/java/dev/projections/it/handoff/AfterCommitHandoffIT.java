package dev.projections.it.handoff;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.MarkKey;
import dev.projections.demo.orders.entity.Customer;
import dev.projections.demo.orders.entity.Order;
import dev.projections.engine.Foundation;
import dev.projections.it.support.Await;
import dev.projections.it.support.CommitRecorder;
import dev.projections.it.support.Deployments;
import dev.projections.it.support.Rows;
import dev.projections.refresh.DrainerOrigin;
import dev.projections.RefreshOutcome;
import jakarta.annotation.Resource;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.UserTransaction;
import java.math.BigDecimal;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The after-commit path, with a sweep too slow to help (1 h): a committed change is refreshed because its
 * keys were handed to an asynchronous drainer after the commit, and a rolled-back one leads to nothing. The
 * entities have SEQUENCE ids and nothing flushes explicitly, so the marks are found during the flush at
 * commit — the case in which an event fired from the flush path is silently dropped (docs/pitfalls.md #10).
 */
@ExtendWith(ArquillianExtension.class)
class AfterCommitHandoffIT {

    @Deployment
    static EnterpriseArchive deployment() {
        return Deployments.ear(Map.of("projection.sweep-interval", "1h"), AfterCommitHandoffIT.class);
    }

    @PersistenceContext(unitName = "demo")
    EntityManager em;

    @Resource
    UserTransaction transaction;

    @Resource(lookup = "java:jboss/datasources/ProjectionDS")
    DataSource dataSource;

    @Inject
    Foundation engine;

    @Inject
    CommitRecorder recorder;

    @Inject
    dev.projections.ee.EngineRuntime runtime;

    @Test
    void aCommittedOrderIsRefreshedOnADrainerThreadStartedByTheHandoff() throws Exception {
        // the sweep runs once a second after start-up, then not for an hour: wait for that run, so the refresh
        // below has only the hand-off to come from
        // to its end (lastSweepAt is set as a sweep begins: its last step may still start a drainer), and for the
        // drainers it started to end: one still collecting on the hand-off would take the commit below without a
        // drainer of the hand-off's own (design D41)
        Await.until("the sweep's first run, ended, and no drainer left from it", () -> engine.stats().lastSweepAt() != null
                && !runtime.assembled().sweep().running() && runtime.assembled().handoff().inFlight() == 0);
        long handoffDrainers = engine.stats().drainersStarted(DrainerOrigin.HANDOFF);

        transaction.begin();
        Customer customer = new Customer("", "handoff-" + UUID.randomUUID());
        em.persist(customer);
        Order order = new Order("", customer, "NEW");
        order.addLine("sku-1", 3, new BigDecimal("2.50"));
        em.persist(order);
        transaction.commit();

        MarkKey key = new MarkKey("order-search", "", String.valueOf(order.getId()));
        // published on the committing thread, after the commit
        assertThat(recorder.committed(key)).singleElement()
                .satisfies(c -> assertThat(c.thread()).isEqualTo(Thread.currentThread().getName()));

        Rows rows = new Rows(dataSource);
        Await.until("order_search row of order " + order.getId(), () ->
                rows.exists("SELECT 1 FROM order_search WHERE order_id = ?", order.getId()));
        assertThat(rows.one("SELECT customer_name, line_count, total FROM order_search WHERE order_id = ?",
                order.getId())).containsExactly(customer.getName(), 1, new BigDecimal("7.50"));
        Await.until("the ack of order " + order.getId(), () ->
                !rows.exists("SELECT 1 FROM projection_pending WHERE entity_id = ? AND projection = 'order-search'",
                        String.valueOf(order.getId())));

        // listeners hear of a refresh after its transaction committed: the ack can be seen a moment earlier
        Await.until("the refresh of order " + order.getId() + " reported", () -> !recorder.refreshed(key).isEmpty());
        assertThat(recorder.refreshed(key)).singleElement().satisfies(r -> {
            assertThat(r.outcome()).isEqualTo(RefreshOutcome.SUCCESS);
            assertThat(r.thread()).isNotEqualTo(Thread.currentThread().getName());
        });
        // (a drainer that first run of the sweep starts for earlier classes' leftovers may overlap this test: only
        // the hand-off's count is this change's)
        assertThat(engine.stats().drainersStarted(DrainerOrigin.HANDOFF)).isGreaterThan(handoffDrainers);
    }

    @Test
    void aRolledBackOrderLeavesNoMarkNoEventAndNoRefresh() throws Exception {
        transaction.begin();
        Customer customer = new Customer("", "rollback-" + UUID.randomUUID());
        em.persist(customer);
        Order order = new Order("", customer, "NEW");
        em.persist(order);
        em.flush(); // the marks are buffered; the rollback must drop them
        transaction.rollback();

        MarkKey key = new MarkKey("order-search", "", String.valueOf(order.getId()));
        Rows rows = new Rows(dataSource);
        assertThat(recorder.committed(key)).isEmpty();
        assertThat(rows.count("SELECT COUNT(*) FROM projection_pending WHERE entity_id = ?",
                String.valueOf(order.getId()))).isZero();
        assertThat(rows.count("SELECT COUNT(*) FROM orders WHERE id = ?", order.getId())).isZero();
        assertThat(recorder.refreshed(key)).isEmpty();
    }
}
