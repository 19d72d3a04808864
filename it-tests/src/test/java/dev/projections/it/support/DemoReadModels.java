package dev.projections.it.support;

/** Counts of the demo's read-model rows that differ from what SQL computes from its write tables (PostgreSQL). */
public final class DemoReadModels {

    /** Read-model rows that differ from what SQL computes from the write tables, missing or extra ones included. */
    public static final String ORDER_SEARCH_WRONG = """
            SELECT COUNT(*) FROM (
                SELECT o.id, o.tenant_id, c.name, o.status, COUNT(l.id) AS line_count,
                       COALESCE(SUM(l.quantity * l.price), 0) AS total, o.version
                  FROM orders o JOIN customer c ON c.id = o.customer_id
                  LEFT JOIN order_line l ON l.order_id = o.id
                 GROUP BY o.id, o.tenant_id, c.name, o.status, o.version) w
              FULL JOIN order_search s ON s.order_id = w.id
             WHERE w.id IS NULL OR s.order_id IS NULL OR s.tenant_id <> w.tenant_id OR s.customer_name <> w.name
                OR s.status <> w.status OR s.line_count <> w.line_count OR s.total <> w.total
                OR s.source_version <> w.version""";

    public static final String CUSTOMER_STATS_WRONG = """
            SELECT COUNT(*) FROM (
                SELECT c.id, c.tenant_id, c.name,
                       (SELECT COUNT(*) FROM orders o WHERE o.customer_id = c.id) AS order_count,
                       (SELECT COALESCE(SUM(l.quantity * l.price), 0) FROM order_line l
                          JOIN orders o ON o.id = l.order_id WHERE o.customer_id = c.id) AS total_amount
                  FROM customer c) w
              FULL JOIN customer_stats s ON s.customer_id = w.id
             WHERE w.id IS NULL OR s.customer_id IS NULL OR s.tenant_id <> w.tenant_id OR s.customer_name <> w.name
                OR s.order_count <> w.order_count OR s.total_amount <> w.total_amount""";

    private DemoReadModels() {
    }
}
