package dev.projections.demo.orders.boundary;

import jakarta.ejb.Stateless;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Reads the demo's read models, so a client can watch them follow the write model. */
@Stateless
public class ReadModels {

    @PersistenceContext(unitName = "demo")
    EntityManager em;

    public Map<String, Object> orderSearch(String tenant, long orderId) {
        List<?> rows = em.createNativeQuery("""
                SELECT order_id, tenant_id, customer_name, status, line_count, total, source_version
                  FROM order_search WHERE tenant_id = ?1 AND order_id = ?2""")
                .setParameter(1, tenant).setParameter(2, orderId).getResultList();
        return rows.isEmpty() ? null : row((Object[]) rows.get(0),
                "orderId", "tenant", "customerName", "status", "lineCount", "total", "sourceVersion");
    }

    public Map<String, Object> customerStats(String tenant, String customerName) {
        List<?> rows = em.createNativeQuery("""
                SELECT customer_id, tenant_id, customer_name, order_count, total_amount
                  FROM customer_stats WHERE tenant_id = ?1 AND customer_name = ?2""")
                .setParameter(1, tenant).setParameter(2, customerName).getResultList();
        return rows.isEmpty() ? null : row((Object[]) rows.get(0),
                "customerId", "tenant", "customerName", "orderCount", "totalAmount");
    }

    private static Map<String, Object> row(Object[] values, String... names) {
        Map<String, Object> row = new LinkedHashMap<>();
        for (int i = 0; i < names.length; i++) {
            row.put(names[i], values[i]);
        }
        return row;
    }
}
