package dev.projections.bench.workload;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Array;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The read model's statements, shared by the projections the engine runs and by the plain-SQL bounds, so that a ratio
 * compares the engine's protocol around the refresh and never two different refreshes.
 * <p>
 * A refresh overwrites {@code order_search} from the write tables with one upsert; only when an order is missing
 * (fewer rows upserted than ids asked for) does a second statement delete the rows of orders that are gone.
 */
public final class OrderSearchSql {

    private static final String UPSERT = """
            INSERT INTO order_search (order_id, customer, status, line_count, total, source_version)
            SELECT o.id, o.customer, o.status, COUNT(l.id), COALESCE(SUM(l.quantity * l.price), 0), o.version
              FROM orders o
              LEFT JOIN order_lines l ON l.order_id = o.id
             WHERE o.id %s
             GROUP BY o.id
             ORDER BY o.id
            ON CONFLICT (order_id) DO UPDATE SET
                   customer = EXCLUDED.customer, status = EXCLUDED.status, line_count = EXCLUDED.line_count,
                   total = EXCLUDED.total, source_version = EXCLUDED.source_version
            """;

    private static final String DELETE_GONE = """
            DELETE FROM order_search s
             WHERE s.order_id %s AND NOT EXISTS (SELECT 1 FROM orders o WHERE o.id = s.order_id)
            """;

    /*
     * A page's rows that differ from what the upsert would write, or exist without their order, or are missing for one:
     * the same aggregate as the refresh, grouped by the page's ids only (set-based, as the demo's drifted()).
     */
    private static final String DRIFTED = """
            SELECT x.id FROM unnest(?::bigint[]) AS x(id)
              LEFT JOIN (SELECT o.id, o.customer, o.status, COUNT(l.id) AS line_count,
                                COALESCE(SUM(l.quantity * l.price), 0) AS total, o.version
                           FROM orders o
                           LEFT JOIN order_lines l ON l.order_id = o.id
                          WHERE o.id = ANY(?)
                          GROUP BY o.id) w ON w.id = x.id
              LEFT JOIN order_search s ON s.order_id = x.id
             WHERE (w.id IS NULL) <> (s.order_id IS NULL)
                OR w.id IS NOT NULL AND (s.customer IS DISTINCT FROM w.customer OR s.status IS DISTINCT FROM w.status
                    OR s.line_count <> w.line_count OR s.total <> w.total OR s.source_version <> w.version)
            """;

    private static final String READ_MODEL_IDS =
            "SELECT order_id FROM order_search WHERE order_id > ? ORDER BY order_id LIMIT ?";

    private static final String ONE = "= ?";
    private static final String ANY = "= ANY(?)";

    private OrderSearchSql() {
    }

    /** Rewrites the row of order {@code id}, or deletes it when the order is gone. */
    public static void refreshOne(Connection connection, long id) throws SQLException {
        try (PreparedStatement upsert = connection.prepareStatement(UPSERT.formatted(ONE))) {
            upsert.setLong(1, id);
            if (upsert.executeUpdate() == 1) {
                return;
            }
        }
        try (PreparedStatement delete = connection.prepareStatement(DELETE_GONE.formatted(ONE))) {
            delete.setLong(1, id);
            delete.executeUpdate();
        }
    }

    /** The same for a set of orders, in one statement (two when some are gone). */
    public static void refreshAll(Connection connection, long[] ids) throws SQLException {
        if (ids.length == 0) {
            return;
        }
        Long[] boxed = new Long[ids.length];
        for (int i = 0; i < ids.length; i++) {
            boxed[i] = ids[i];
        }
        Array array = connection.createArrayOf("bigint", boxed);
        int upserted;
        try (PreparedStatement upsert = connection.prepareStatement(UPSERT.formatted(ANY))) {
            upsert.setArray(1, array);
            upserted = upsert.executeUpdate();
        }
        if (upserted < Arrays.stream(ids).distinct().count()) {
            try (PreparedStatement delete = connection.prepareStatement(DELETE_GONE.formatted(ANY))) {
                delete.setArray(1, array);
                delete.executeUpdate();
            }
        }
    }

    /** Of {@code ids}, those whose row differs from what a refresh would write now, in one statement. */
    public static Set<String> drifted(Connection connection, long[] ids) throws SQLException {
        Set<String> drifted = new HashSet<>();
        if (ids.length == 0) {
            return drifted;
        }
        Long[] boxed = Arrays.stream(ids).boxed().toArray(Long[]::new);
        Array array = connection.createArrayOf("bigint", boxed);
        try (PreparedStatement select = connection.prepareStatement(DRIFTED)) {
            select.setArray(1, array);
            select.setArray(2, array);
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    drifted.add(Long.toString(rows.getLong(1)));
                }
            }
        }
        return drifted;
    }

    /** The read model's own order ids after {@code after}, at most {@code limit}. */
    public static List<String> readModelIds(Connection connection, long after, int limit) throws SQLException {
        List<String> ids = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement(READ_MODEL_IDS)) {
            select.setLong(1, after);
            select.setInt(2, limit);
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    ids.add(Long.toString(rows.getLong(1)));
                }
            }
        }
        return ids;
    }

    public static long[] parse(List<String> ids) {
        return ids.stream().mapToLong(Long::parseLong).toArray();
    }
}
