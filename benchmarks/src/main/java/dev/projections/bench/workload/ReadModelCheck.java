package dev.projections.bench.workload;

import dev.projections.bench.db.BenchDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.Collection;

/**
 * Compares {@code order_search} with the aggregates computed from the write tables now: the number of rows that
 * differ either way (missing, extra or stale). Zero after a drain means every refresh read what was committed.
 */
public final class ReadModelCheck {

    private static final String DIFFERENCE = """
            WITH expected AS (
                   SELECT o.id AS order_id, o.customer, o.status, COUNT(l.id)::int AS line_count,
                          COALESCE(SUM(l.quantity * l.price), 0)::numeric(14, 2) AS total, o.version AS source_version
                     FROM orders o LEFT JOIN order_lines l ON l.order_id = o.id
                    %s
                    GROUP BY o.id),
                 actual AS (
                   SELECT order_id, customer, status, line_count, total, source_version FROM order_search %s)
            SELECT (SELECT COUNT(*) FROM (SELECT * FROM expected EXCEPT SELECT * FROM actual) AS missing_or_stale)
                 + (SELECT COUNT(*) FROM (SELECT * FROM actual EXCEPT SELECT * FROM expected) AS extra_or_stale)
            """;

    private ReadModelCheck() {
    }

    /** Rows that differ over all orders. */
    public static long differences(BenchDatabase database) throws Exception {
        return run(database, DIFFERENCE.formatted("", ""), null);
    }

    /** Rows that differ among {@code orderIds} only. */
    public static long differences(BenchDatabase database, Collection<Long> orderIds) throws Exception {
        if (orderIds.isEmpty()) {
            return 0;
        }
        return run(database, DIFFERENCE.formatted("WHERE o.id = ANY(?)", "WHERE order_id = ANY(?)"),
                orderIds.toArray(Long[]::new));
    }

    private static long run(BenchDatabase database, String sql, Long[] ids) throws Exception {
        try (Connection connection = database.connect(); PreparedStatement select = connection.prepareStatement(sql)) {
            if (ids != null) {
                select.setArray(1, connection.createArrayOf("bigint", ids));
                select.setArray(2, connection.createArrayOf("bigint", ids));
            }
            try (ResultSet rows = select.executeQuery()) {
                rows.next();
                return rows.getLong(1);
            }
        }
    }
}
