package dev.projections.demo.orders.control;

import dev.projections.Projection;
import dev.projections.Verifiable;
import dev.projections.demo.tenancy.DemoTenancy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/** {@code customer_stats}: per customer, the number of orders and the sum of quantity × price of their lines; tenant-scoped. */
@ApplicationScoped
public class CustomerStatsProjection implements Projection, Verifiable {

    public static final String NAME = "customer-stats";

    @Inject
    @DemoUnit // from an EJB of the unit's module, so Payara resolves it whoever calls (DemoEntityManager)
    EntityManager em;

    @Inject
    ProjectionFaults faults;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public void refresh(String id) {
        faults.check(NAME, 1);
        long customerId = Long.parseLong(id);
        em.createNativeQuery("DELETE FROM customer_stats WHERE customer_id = ?1").setParameter(1, customerId)
                .executeUpdate();
        // the subqueries name the bound id, not c.id: a correlated c.id hides the value from the planner, which then
        // plans for an average customer — with one customer of 1,000,000 orders that is a hash join over every
        // order line, 110 ms for each refresh of any customer (docs/pitfalls.md #91); with the value it is an index
        // lookup of the customer's own orders, 0.1 ms
        em.createNativeQuery("""
                INSERT INTO customer_stats (customer_id, tenant_id, customer_name, order_count, total_amount)
                SELECT c.id, c.tenant_id, c.name,
                       (SELECT COUNT(*) FROM orders o WHERE o.customer_id = ?1),
                       (SELECT COALESCE(SUM(l.quantity * l.price), 0)
                          FROM order_line l JOIN orders o ON o.id = l.order_id WHERE o.customer_id = ?1)
                  FROM customer c
                 WHERE c.id = ?1 AND c.tenant_id = ?2
                """).setParameter(1, customerId).setParameter(2, DemoTenancy.current()).executeUpdate();
    }

    /**
     * Set-based, one statement for a page: the customers whose row is missing or differs from what {@link #refresh}
     * would insert, and the rows whose customer is gone. The page's orders and lines are aggregated once, by the
     * page's ids: subqueries correlated on {@code c.id} would be planned for an average customer, a hash join over
     * every order line per customer of a skewed table (docs/pitfalls.md #91), and a page would outlast its step. On
     * MariaDB the demo's tables compare names without case, so a rename that changes only case is not seen there.
     */
    @Override
    public Set<String> drifted(List<String> ids) {
        List<Long> customerIds = ids.stream().map(Long::valueOf).toList();
        List<?> drifted = em.createNativeQuery("""
                SELECT c.id
                  FROM customer c
                  LEFT JOIN customer_stats s ON s.customer_id = c.id
                  LEFT JOIN (SELECT o.customer_id, COUNT(*) AS orders_now
                               FROM orders o WHERE o.customer_id IN (:ids) GROUP BY o.customer_id) oc
                         ON oc.customer_id = c.id
                  LEFT JOIN (SELECT o.customer_id, SUM(l.quantity * l.price) AS total_now
                               FROM order_line l JOIN orders o ON o.id = l.order_id
                              WHERE o.customer_id IN (:ids) GROUP BY o.customer_id) lt
                         ON lt.customer_id = c.id
                 WHERE c.id IN (:ids) AND c.tenant_id = :tenant
                   AND (s.customer_id IS NULL OR s.tenant_id <> c.tenant_id OR s.customer_name <> c.name
                        OR s.order_count <> COALESCE(oc.orders_now, 0)
                        OR s.total_amount <> COALESCE(lt.total_now, 0))
                UNION
                SELECT s.customer_id
                  FROM customer_stats s
                 WHERE s.customer_id IN (:ids) AND s.tenant_id = :tenant
                   AND NOT EXISTS (SELECT 1 FROM customer c WHERE c.id = s.customer_id AND c.tenant_id = :tenant)
                """).setParameter("ids", customerIds).setParameter("tenant", DemoTenancy.current()).getResultList();
        return drifted.stream().map(id -> String.valueOf(((Number) id).longValue())).collect(Collectors.toSet());
    }

    @Override
    public List<String> readModelIds(String after, int limit) {
        List<?> ids = em.createNativeQuery("""
                        SELECT customer_id FROM customer_stats WHERE customer_id > :after AND tenant_id = :tenant
                         ORDER BY customer_id""")
                .setParameter("after", after == null ? Long.MIN_VALUE : Long.parseLong(after))
                .setParameter("tenant", DemoTenancy.current())
                .setMaxResults(limit)
                .getResultList();
        return ids.stream().map(id -> String.valueOf(((Number) id).longValue())).toList();
    }

    @Override
    public List<String> ids(String after, int limit) {
        return em.createQuery("SELECT c.id FROM Customer c WHERE c.id > :after AND c.tenantId = :tenant ORDER BY c.id",
                        Long.class)
                .setParameter("after", after == null ? Long.MIN_VALUE : Long.parseLong(after))
                .setParameter("tenant", DemoTenancy.current())
                .setMaxResults(limit)
                .getResultList().stream().map(String::valueOf).toList();
    }

    @Override
    public void clear() {
        em.createNativeQuery("DELETE FROM customer_stats WHERE tenant_id = ?1").setParameter(1, DemoTenancy.current())
                .executeUpdate();
    }
}
