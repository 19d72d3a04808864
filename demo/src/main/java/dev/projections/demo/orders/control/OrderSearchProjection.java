package dev.projections.demo.orders.control;

import dev.projections.Projection;
import dev.projections.RebuildScope;
import dev.projections.Verifiable;
import dev.projections.demo.tenancy.DemoTenancy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import jakarta.persistence.TypedQuery;

/**
 * {@code order_search}: one row per order with its customer's name, line count and total. Tenant-scoped: a refresh
 * sees only its tenant's orders (the engine enters the mark's tenant), so a mark in the wrong tenant leaves no row.
 */
@ApplicationScoped
public class OrderSearchProjection implements Projection, Verifiable {

    public static final String NAME = "order-search";

    @Inject
    @DemoUnit // from an EJB of the unit's module, so Payara resolves it whoever calls (DemoEntityManager)
    EntityManager em;

    @Inject
    ProjectionFaults faults;

    @Override
    public String name() {
        return NAME;
    }

    /** Overwrites the order's row from the write tables, or leaves none when the order is gone. */
    @Override
    public void refresh(String id) {
        refreshAll(List.of(id));
    }

    /** Set-based: two statements for a whole batch, which is what makes a rebuild of 100,000 orders quick. */
    @Override
    public void refreshAll(List<String> ids) {
        faults.check(NAME, ids.size());
        List<Long> orderIds = ids.stream().map(Long::valueOf).toList();
        em.createNativeQuery("DELETE FROM order_search WHERE order_id IN (:ids)").setParameter("ids", orderIds)
                .executeUpdate();
        em.createNativeQuery("""
                INSERT INTO order_search (order_id, tenant_id, customer_name, status, line_count, total, source_version)
                SELECT o.id, o.tenant_id, c.name, o.status, COUNT(l.id), COALESCE(SUM(l.quantity * l.price), 0), o.version
                  FROM orders o
                  JOIN customer c ON c.id = o.customer_id
                  LEFT JOIN order_line l ON l.order_id = o.id
                 WHERE o.id IN (:ids) AND o.tenant_id = :tenant
                 GROUP BY o.id, o.tenant_id, c.name, o.status, o.version
                """).setParameter("ids", orderIds).setParameter("tenant", DemoTenancy.current()).executeUpdate();
    }

    /**
     * Set-based, one statement for a page: the orders whose row is missing or differs from what {@link #refreshAll}
     * would insert, and the rows whose order is gone. Text is compared in the column's collation: on MariaDB, whose
     * default is case-insensitive, a rename that changes only case is not seen (docs/pitfalls.md #118).
     */
    @Override
    public Set<String> drifted(List<String> ids) {
        List<Long> orderIds = ids.stream().map(Long::valueOf).toList();
        List<?> drifted = em.createNativeQuery("""
                SELECT o.id
                  FROM orders o
                  JOIN customer c ON c.id = o.customer_id
                  LEFT JOIN order_search s ON s.order_id = o.id
                 WHERE o.id IN (:ids) AND o.tenant_id = :tenant
                   AND (s.order_id IS NULL OR s.tenant_id <> o.tenant_id OR s.customer_name <> c.name
                        OR s.status <> o.status OR s.source_version <> o.version
                        OR s.line_count <> (SELECT COUNT(*) FROM order_line l WHERE l.order_id = o.id)
                        OR s.total <> (SELECT COALESCE(SUM(l.quantity * l.price), 0) FROM order_line l
                                        WHERE l.order_id = o.id))
                UNION
                SELECT s.order_id
                  FROM order_search s
                 WHERE s.order_id IN (:ids) AND s.tenant_id = :tenant
                   AND NOT EXISTS (SELECT 1 FROM orders o JOIN customer c ON c.id = o.customer_id
                                    WHERE o.id = s.order_id AND o.tenant_id = :tenant)
                """).setParameter("ids", orderIds).setParameter("tenant", DemoTenancy.current()).getResultList();
        return drifted.stream().map(id -> String.valueOf(((Number) id).longValue())).collect(Collectors.toSet());
    }

    @Override
    public List<String> readModelIds(String after, int limit) {
        List<?> ids = em.createNativeQuery(
                        "SELECT order_id FROM order_search WHERE order_id > :after AND tenant_id = :tenant ORDER BY order_id")
                .setParameter("after", after == null ? Long.MIN_VALUE : Long.parseLong(after))
                .setParameter("tenant", DemoTenancy.current())
                .setMaxResults(limit)
                .getResultList();
        return ids.stream().map(id -> String.valueOf(((Number) id).longValue())).toList();
    }

    @Override
    public List<String> ids(String after, int limit) {
        return em.createQuery("SELECT o.id FROM CustomerOrder o WHERE o.id > :after AND o.tenantId = :tenant ORDER BY o.id",
                        Long.class)
                .setParameter("after", after == null ? Long.MIN_VALUE : Long.parseLong(after))
                .setParameter("tenant", DemoTenancy.current())
                .setMaxResults(limit)
                .getResultList().stream().map(String::valueOf).toList();
    }

    /* scoped runs: by id range (numeric, inclusive), by status (status=NEW), and so in partitions by id range */
    @Override
    public Set<RebuildScope.Kind> rebuildScopes() {
        return EnumSet.of(RebuildScope.Kind.ID_RANGE, RebuildScope.Kind.FILTER);
    }

    @Override
    public Set<String> rebuildFilters() {
        return Set.of("status");
    }

    @Override
    public List<String> ids(String after, int limit, RebuildScope scope) {
        return scoped("SELECT o.id FROM CustomerOrder o WHERE o.id > :after", scope, Long.class)
                .setParameter("after", after == null ? Long.MIN_VALUE : Long.parseLong(after))
                .setMaxResults(limit)
                .getResultList().stream().map(String::valueOf).toList();
    }

    /** Cuts the scope's id span, lowest to highest, into n equal ranges of ids. */
    @Override
    public List<String> partitionBounds(RebuildScope scope, int n) {
        Object[] span = scoped("SELECT MIN(o.id), MAX(o.id) FROM CustomerOrder o WHERE 1 = 1", scope, Object[].class)
                .getSingleResult();
        if (span[0] == null) {
            return List.of();
        }
        long low = (Long) span[0];
        long high = (Long) span[1];
        TreeSet<Long> bounds = new TreeSet<>();
        for (int k = 1; k < n; k++) {
            long bound = low + (long) ((double) (high - low) * k / n);
            if (bound >= low && bound < high) {
                bounds.add(bound);
            }
        }
        List<String> ids = new ArrayList<>();
        bounds.forEach(bound -> ids.add(String.valueOf(bound)));
        return ids;
    }

    private <T> TypedQuery<T> scoped(String select, RebuildScope scope, Class<T> type) {
        StringBuilder jpql = new StringBuilder(select).append(" AND o.tenantId = :tenant");
        if (scope.from() != null) {
            jpql.append(" AND o.id >= :from");
        }
        if (scope.to() != null) {
            jpql.append(" AND o.id <= :to");
        }
        if (scope.filter() != null) {
            if (!"status".equals(scope.filterName())) {
                throw new IllegalArgumentException("order-search has no filter " + scope.filterName() + "; it has: status");
            }
            jpql.append(" AND o.status = :status");
        }
        if (select.contains("o.id >")) {
            jpql.append(" ORDER BY o.id");
        }
        TypedQuery<T> query = em.createQuery(jpql.toString(), type)
                .setParameter("tenant", DemoTenancy.current());
        if (scope.from() != null) {
            query.setParameter("from", Long.parseLong(scope.from()));
        }
        if (scope.to() != null) {
            query.setParameter("to", Long.parseLong(scope.to()));
        }
        if (scope.filter() != null) {
            query.setParameter("status", scope.filterValue());
        }
        return query;
    }
}
