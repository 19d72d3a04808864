package dev.projections.it.marking;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.projections.MarkKey;
import dev.projections.Projections;
import dev.projections.demo.orders.entity.Customer;
import dev.projections.demo.orders.entity.Order;
import dev.projections.engine.Foundation;
import dev.projections.it.support.CommitRecorder;
import dev.projections.it.support.Deployments;
import dev.projections.it.support.Rows;
import jakarta.annotation.Resource;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.RollbackException;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;
import jakarta.transaction.UserTransaction;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Marking (docs/contract.md §3), observed in the pending table with refreshing switched off: what a commit writes, with how
 * many statements, and what a rollback or a veto leaves. Entities use SEQUENCE ids and nothing is flushed
 * explicitly unless a test says why.
 */
@ExtendWith(ArquillianExtension.class)
class MarkingIT {

    @Deployment
    static EnterpriseArchive deployment() {
        return Deployments.ear(Map.of("projection.auto-refresh", "false"), MarkingIT.class);
    }

    @PersistenceContext(unitName = "demo")
    EntityManager em;

    @Resource
    UserTransaction transaction;

    @Resource
    TransactionSynchronizationRegistry synchronizations;

    @Resource
    jakarta.enterprise.concurrent.ManagedExecutorService executor;

    @Resource(lookup = "java:jboss/datasources/ProjectionDS")
    DataSource dataSource;

    @Inject
    Foundation engine;

    @Inject
    Projections projections;

    @Inject
    CommitRecorder recorder;

    @AfterEach
    void resetClock() {
        engine.clock().reset();
    }

    @Test
    void aCommitWritesAllItsMarksWithOneStatementInTheBusinessTransaction() throws Exception {
        long statements = engine.stats().markStatements();
        transaction.begin();
        Customer customer = customer("one-statement");
        Order order = new Order("", customer, "NEW");
        order.addLine("a", 1, BigDecimal.ONE);
        order.addLine("b", 2, BigDecimal.TEN);
        em.persist(order);
        transaction.commit();

        assertThat(markCount("order-search", order.getId())).isEqualTo(1);
        assertThat(markCount("customer-stats", customer.getId())).isEqualTo(1);
        assertThat(engine.stats().markStatements()).isEqualTo(statements + 1);
    }

    @Test
    void anUpdateWithoutExplicitFlushPublishesItsMarksAfterTheCommit() throws Exception {
        Order order = committedOrder("update-no-flush");
        transaction.begin();
        em.find(Order.class, order.getId()).setStatus("PAID");
        transaction.commit();

        MarkKey key = new MarkKey("order-search", "", String.valueOf(order.getId()));
        assertThat(recorder.committed(key)).hasSize(2); // the insert's commit, then the update's
        assertThat(markCount("order-search", order.getId())).isEqualTo(2);
    }

    @Test
    void aRolledBackUpdatePublishesNothingAndLeavesThePendingMarkAsItWas() throws Exception {
        Order order = committedOrder("update-rollback");
        List<Object> before = pendingRow("order-search", order.getId());
        transaction.begin();
        em.find(Order.class, order.getId()).setStatus("CANCELLED");
        em.flush();
        transaction.rollback();

        MarkKey key = new MarkKey("order-search", "", String.valueOf(order.getId()));
        assertThat(recorder.committed(key)).hasSize(1);
        assertThat(pendingRow("order-search", order.getId())).isEqualTo(before);
    }

    @Test
    void aVetoAfterTheMarksWereWrittenRollsBackBothDataAndMarks() throws Exception {
        AtomicLong marksSeenByTheVeto = new AtomicLong(-1);
        transaction.begin();
        Customer customer = customer("veto");
        Order order = new Order("", customer, "NEW");
        em.persist(order);
        // registered after the persistence context joined, so it runs after Hibernate wrote the marks
        synchronizations.registerInterposedSynchronization(new Synchronization() {
            @Override
            public void beforeCompletion() {
                marksSeenByTheVeto.set(pendingCountInThisTransaction(order.getId()));
                throw new IllegalStateException("vetoed by the test");
            }

            @Override
            public void afterCompletion(int status) {
            }
        });
        assertThatThrownBy(() -> transaction.commit()).isInstanceOf(RollbackException.class);

        assertThat(marksSeenByTheVeto.get()).as("marks written before the veto").isEqualTo(1);
        Rows rows = new Rows(dataSource);
        assertThat(rows.count("SELECT COUNT(*) FROM orders WHERE id = ?", order.getId())).isZero();
        assertThat(markCount("order-search", order.getId())).isZero();
        assertThat(recorder.committed(new MarkKey("order-search", "", String.valueOf(order.getId())))).isEmpty();
    }

    @Test
    void threeMarksOfOneKeyInOneTransactionMakeOneRowWithOneStatement() throws Exception {
        Order order = committedOrder("three-marks");
        delete("order-search", order.getId());
        long statements = engine.stats().markStatements();
        transaction.begin();
        Order managed = em.find(Order.class, order.getId());
        managed.setStatus("PAID");
        em.persist(managed.addLine("x", 1, BigDecimal.ONE));
        em.persist(managed.addLine("y", 1, BigDecimal.ONE));
        transaction.commit();

        assertThat(markCount("order-search", order.getId())).isEqualTo(1);
        assertThat(engine.stats().markStatements()).isEqualTo(statements + 1);
    }

    @Test
    void aChangeWhileAMarkIsPendingGivesANewGenerationAndKeepsFirstMarkedAt() throws Exception {
        Order order = committedOrder("re-mark");
        List<Object> first = pendingRow("order-search", order.getId());
        engine.clock().advance(Duration.ofMinutes(3));
        transaction.begin();
        em.find(Order.class, order.getId()).setStatus("SHIPPED");
        transaction.commit();

        List<Object> second = pendingRow("order-search", order.getId());
        assertThat(second.get(0)).as("generation").isNotEqualTo(first.get(0));
        assertThat(second.get(1)).as("mark_count").isEqualTo(2L);
        assertThat(second.get(2)).as("first_marked_at").isEqualTo(first.get(2));
        assertThat(second.get(3)).as("available_at").isNotEqualTo(first.get(3));
    }

    @Test
    void movingAnOrderToAnotherCustomerMarksBothWithoutLoadingTheOldOne() throws Exception {
        Order order = committedOrder("move-from");
        long oldCustomer = order.getCustomer().getId();
        delete("customer-stats", oldCustomer);

        transaction.begin();
        Order managed = em.find(Order.class, order.getId());
        Customer oldProxy = managed.getCustomer();
        Customer newCustomer = customer("move-to");
        managed.setCustomer(newCustomer);
        transaction.commit();

        assertThat(em.getEntityManagerFactory().getPersistenceUnitUtil().isLoaded(oldProxy))
                .as("the old customer was read through its proxy, not loaded").isFalse();
        assertThat(markCount("customer-stats", oldCustomer)).isEqualTo(1);
        assertThat(markCount("customer-stats", newCustomer.getId())).isEqualTo(1);
    }

    @Test
    void reattachingADetachedOrderMovedToAnotherCustomerMarksTheOldCustomerToo() throws Exception {
        // Session.update of a detached instance: Hibernate has no old state, so the old key is read from the row.
        // Hibernate ORM 7 (Jakarta EE 11) removed update: there a detached instance comes back by merge, which loads it
        Order order = committedOrder("reattach-from"); // detached: the persistence context ended with the commit
        long oldCustomer = order.getCustomer().getId();
        transaction.begin();
        Customer newCustomer = customer("reattach-to");
        transaction.commit();
        delete("customer-stats", oldCustomer);
        delete("customer-stats", newCustomer.getId());

        order.setCustomer(newCustomer);
        transaction.begin();
        Object session = em.getDelegate(); // the Hibernate session; called reflectively, the WAR does not see Hibernate
        String hibernate = (String) Class.forName("org.hibernate.Version", true, session.getClass().getClassLoader())
                .getMethod("getVersionString").invoke(null);
        if (hibernate.startsWith("6.")) {
            session.getClass().getMethod("update", Object.class).invoke(session, order);
        } else {
            em.merge(order);
        }
        transaction.commit();

        assertThat(markCount("customer-stats", newCustomer.getId())).isEqualTo(1);
        assertThat(markCount("customer-stats", oldCustomer)).as("the customer it moved away from").isEqualTo(1);
    }

    @Test
    void markDirtyInATransactionThatTouchesNothingElseCommitsItsMark() throws Exception {
        String id = "explicit-" + UUID.randomUUID();
        transaction.begin();
        projections.markDirty("customer-stats", id);
        assertThat(markCount("customer-stats", id)).as("deferred to the commit").isZero();
        transaction.commit();
        assertThat(markCount("customer-stats", id)).isEqualTo(1);
        assertThat(recorder.committed(new MarkKey("customer-stats", "", id))).hasSize(1);
    }

    @Test
    void anExplicitMarkJoinsTheSessionsMarksAndTheCommitWritesThemWithOneStatement() throws Exception {
        Order order = committedOrder("joined");
        delete("order-search", order.getId());
        String explicit = "joined-" + UUID.randomUUID();
        long statements = engine.stats().markStatements();
        transaction.begin();
        em.find(Order.class, order.getId()).setStatus("PAID");
        projections.markDirty("customer-stats", explicit);
        transaction.commit();

        assertThat(markCount("order-search", order.getId())).isEqualTo(1);
        assertThat(markCount("customer-stats", explicit)).isEqualTo(1);
        assertThat(engine.stats().markStatements()).isEqualTo(statements + 1);
        assertThat(recorder.committed(new MarkKey("customer-stats", "", explicit))).hasSize(1);
    }

    @Test
    void markDirtyBeforeTheSessionsFirstUseIsWrittenWithTheSessionsMarksInOneStatement() throws Exception {
        Order order = committedOrder("explicit-first");
        delete("order-search", order.getId());
        String explicit = "explicit-first-" + UUID.randomUUID();
        long statements = engine.stats().markStatements();
        transaction.begin();
        projections.markDirty("customer-stats", explicit); // before the EntityManager joins the transaction
        em.find(Order.class, order.getId()).setStatus("PAID");
        transaction.commit();

        assertThat(markCount("order-search", order.getId())).isEqualTo(1);
        assertThat(markCount("customer-stats", explicit)).isEqualTo(1);
        assertThat(engine.stats().markStatements()).as("one key-ordered statement").isEqualTo(statements + 1);
        assertThat(recorder.committed(new MarkKey("customer-stats", "", explicit))).hasSize(1);
    }

    @Test
    void mirrorImageTransactionsThatMarkBeforeTheirFirstEntityUseNeverDeadlock() throws Exception {
        // T1 marks customer B's stats, then changes an order of customer A; T2 the mirror image. Written in two
        // statements each (explicit first, then the session's), the two commits would lock A and B in opposite
        // orders; both commit at once, 200 times.
        Order ofA = committedOrder("mirror-a");
        Order ofB = committedOrder("mirror-b");
        String a = String.valueOf(ofA.getCustomer().getId());
        String b = String.valueOf(ofB.getCustomer().getId());
        java.util.concurrent.atomic.AtomicInteger failed = new java.util.concurrent.atomic.AtomicInteger();
        List<String> errors = new java.util.concurrent.CopyOnWriteArrayList<>();
        for (int round = 0; round < 200; round++) {
            java.util.concurrent.CyclicBarrier bothReady = new java.util.concurrent.CyclicBarrier(2);
            java.util.concurrent.Future<?> first = executor.submit(() ->
                    markThenChange(b, ofA.getId(), "R" + System.nanoTime(), bothReady, failed, errors));
            java.util.concurrent.Future<?> second = executor.submit(() ->
                    markThenChange(a, ofB.getId(), "R" + System.nanoTime(), bothReady, failed, errors));
            first.get(60, java.util.concurrent.TimeUnit.SECONDS);
            second.get(60, java.util.concurrent.TimeUnit.SECONDS);
        }
        assertThat(errors).as("transactions aborted").isEmpty();
        assertThat(failed.get()).isZero();
    }

    private void markThenChange(String customerStatsId, long orderId, String status,
                                java.util.concurrent.CyclicBarrier bothReady,
                                java.util.concurrent.atomic.AtomicInteger failed, List<String> errors) {
        try {
            transaction.begin();
            try {
                projections.markDirty("customer-stats", customerStatsId);
                em.find(Order.class, orderId).setStatus(status);
                bothReady.await(30, java.util.concurrent.TimeUnit.SECONDS);
            } catch (Exception e) {
                transaction.rollback();
                throw e;
            }
            transaction.commit();
        } catch (Exception e) {
            failed.incrementAndGet();
            errors.add(e.toString());
        }
    }

    @Test
    void markDirtyInATransactionMarkedRollbackOnlyIsDroppedWithItAndAnnouncesNothing() throws Exception {
        String id = "explicit-doomed-" + UUID.randomUUID();
        transaction.begin();
        transaction.setRollbackOnly();
        projections.markDirty("customer-stats", id);
        transaction.rollback();

        assertThat(markCount("customer-stats", id)).isZero();
        assertThat(recorder.committed(new MarkKey("customer-stats", "", id))).isEmpty();
    }

    @Test
    void markDirtyInARolledBackTransactionLeavesNothing() throws Exception {
        String id = "explicit-rollback-" + UUID.randomUUID();
        transaction.begin();
        projections.markDirty("customer-stats", List.of(id, id + "-b"));
        transaction.rollback();
        assertThat(markCount("customer-stats", id)).isZero();
        assertThat(recorder.committed(new MarkKey("customer-stats", "", id))).isEmpty();
    }

    @Test
    void markDirtyOutsideATransactionIsWrittenAtOnce() {
        String id = "no-transaction-" + UUID.randomUUID();
        projections.markDirty("order-search", id);
        assertThat(markCount("order-search", id)).isEqualTo(1);
        assertThat(recorder.committed(new MarkKey("order-search", "", id))).hasSize(1);
    }

    @Test
    void badArgumentsAreRejectedNamingTheValueAndNothingIsWritten() {
        long before = new Rows(dataSource).count("SELECT COUNT(*) FROM projection_pending");
        String tooLong = "x".repeat(201);
        List<Object[]> cases = new ArrayList<>(List.of(
                new Object[] {"no-such-projection", "1", "unknown projection \"no-such-projection\"; known projections: [customer-stats, order-search]"},
                new Object[] {null, "1", "unknown projection null"},
                new Object[] {"order-search", null, "is null"},
                new Object[] {"order-search", "  ", "is blank"},
                new Object[] {"order-search", tooLong, "201 characters long; at most 200"},
                new Object[] {"order-search", "a\u0007b", "contains control characters"}));
        for (Object[] c : cases) {
            assertThatThrownBy(() -> projections.markDirty((String) c[0], (String) c[1]))
                    .as(Arrays.toString(c)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining((String) c[2]);
        }
        assertThatThrownBy(() -> projections.markDirty("order-search", (List<String>) null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ids must not be null");
        assertThatThrownBy(() -> projections.markDirty("order-search", Arrays.asList("ok-1", null)))
                .as("one bad id in a batch writes none").isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> projections.pending("nope"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("\"nope\"");
        assertThat(new Rows(dataSource).count("SELECT COUNT(*) FROM projection_pending")).isEqualTo(before);
    }

    private Order committedOrder(String customerPrefix) throws Exception {
        transaction.begin();
        Order order = new Order("", customer(customerPrefix), "NEW");
        em.persist(order);
        transaction.commit();
        return order;
    }

    private Customer customer(String prefix) {
        Customer customer = new Customer("", prefix + "-" + UUID.randomUUID());
        em.persist(customer);
        return customer;
    }

    private long markCount(String projection, Object id) {
        List<List<Object>> rows = new Rows(dataSource).all(
                "SELECT mark_count FROM projection_pending WHERE projection = ? AND tenant_id = '' AND entity_id = ?",
                projection, String.valueOf(id));
        return rows.isEmpty() ? 0 : ((Number) rows.get(0).get(0)).longValue();
    }

    private List<Object> pendingRow(String projection, Object id) {
        return new Rows(dataSource).one("""
                SELECT generation, mark_count, first_marked_at, available_at FROM projection_pending
                 WHERE projection = ? AND tenant_id = '' AND entity_id = ?""", projection, String.valueOf(id));
    }

    private void delete(String projection, Object id) throws Exception {
        try (Connection connection = dataSource.getConnection();
             PreparedStatement delete = connection.prepareStatement(
                     "DELETE FROM projection_pending WHERE projection = ? AND entity_id = ?")) {
            delete.setString(1, projection);
            delete.setString(2, String.valueOf(id));
            delete.executeUpdate();
        }
    }

    /** Through the transaction's own connection: sees what the transaction wrote before it commits. */
    private long pendingCountInThisTransaction(Object orderId) {
        try (Connection connection = dataSource.getConnection();
             PreparedStatement count = connection.prepareStatement(
                     "SELECT COUNT(*) FROM projection_pending WHERE projection = 'order-search' AND entity_id = ?")) {
            count.setString(1, String.valueOf(orderId));
            try (ResultSet rs = count.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
