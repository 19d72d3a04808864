package dev.projections.bench.workload;

import dev.projections.MarkKey;
import dev.projections.bench.db.BenchDatabase;
import dev.projections.store.PendingQueue;
import java.sql.Connection;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;

/**
 * The write model (orders with three lines each, ids 1..N) and the empty read model of {@code order-search}. The
 * tables mirror the demo's orders, made flatter (the customer is a column) so that every refresh is one join. Loaded
 * with set-based SQL: loading is not what is measured.
 */
public final class OrderWorkload {

    public static final int LINES_PER_ORDER = 3;

    /** Every table a phase may leave rows or dead tuples in. */
    private static final String[] TABLES = {"orders", "order_lines", "order_search", "projection_pending",
            "projection_rebuild", "projection_rebuild_partition"};
    /** The tables every drain changes; the write tables change only in phases that run business transactions. */
    private static final String[] QUEUE_AND_READ_MODEL = {"order_search", "projection_pending", "projection_rebuild",
            "projection_rebuild_partition"};

    private static final int MARK_PAGE = 1_000;

    private final BenchDatabase database;
    private final int orders;

    private OrderWorkload(BenchDatabase database, int orders) {
        this.database = database;
        this.orders = orders;
    }

    /** Drops and loads {@code orders} orders with their lines; the read model and the pending table are empty. */
    public static OrderWorkload load(BenchDatabase database, int orders) throws Exception {
        long firstFreeOrder = orders + 1_000L;
        long firstFreeLine = (long) orders * LINES_PER_ORDER + 1_000L;
        database.execute(
                "DROP TABLE IF EXISTS order_search, order_lines, orders CASCADE",
                "DROP SEQUENCE IF EXISTS orders_seq, order_lines_seq",
                """
                CREATE TABLE orders (
                  id BIGINT PRIMARY KEY,
                  customer VARCHAR(100) NOT NULL,
                  status VARCHAR(20) NOT NULL,
                  created_at TIMESTAMP WITH TIME ZONE NOT NULL,
                  version BIGINT NOT NULL)""",
                """
                CREATE TABLE order_lines (
                  id BIGINT PRIMARY KEY,
                  order_id BIGINT NOT NULL REFERENCES orders (id),
                  product VARCHAR(100) NOT NULL,
                  quantity INT NOT NULL,
                  price NUMERIC(12, 2) NOT NULL)""",
                """
                CREATE TABLE order_search (
                  order_id BIGINT PRIMARY KEY,
                  customer VARCHAR(100) NOT NULL,
                  status VARCHAR(20) NOT NULL,
                  line_count INT NOT NULL,
                  total NUMERIC(14, 2) NOT NULL,
                  source_version BIGINT NOT NULL)""",
                // Hibernate's pooled optimizer takes 50 ids per call (allocationSize = 50, as in the demo)
                "CREATE SEQUENCE orders_seq START WITH " + firstFreeOrder + " INCREMENT BY 50",
                "CREATE SEQUENCE order_lines_seq START WITH " + firstFreeLine + " INCREMENT BY 50",
                """
                INSERT INTO orders (id, customer, status, created_at, version)
                SELECT g, 'customer-' || (g %% 997), CASE WHEN g %% 3 = 0 THEN 'PAID' ELSE 'NEW' END,
                       TIMESTAMP WITH TIME ZONE '2025-01-01 00:00:00+00' + g * INTERVAL '1 minute', 0
                  FROM generate_series(1, %d) AS g""".formatted(orders),
                """
                INSERT INTO order_lines (id, order_id, product, quantity, price)
                SELECT (g - 1) * %d + k, g, 'sku-' || ((g * 7 + k) %% 500), 1 + (g + k) %% 5,
                       1 + ((g * 13 + k * 7) %% 10000) / 100.0
                  FROM generate_series(1, %d) AS g, generate_series(1, %d) AS k
                 ORDER BY g, k""".formatted(LINES_PER_ORDER, orders, LINES_PER_ORDER),
                "CREATE INDEX order_lines_order_idx ON order_lines (order_id)");
        OrderWorkload workload = new OrderWorkload(database, orders);
        workload.clearQueueAndReadModel();
        workload.vacuum();
        return workload;
    }

    public int orders() {
        return orders;
    }

    public int lines() {
        return orders * LINES_PER_ORDER;
    }

    /** No marks, no rebuild runs, an empty read model, fresh statistics: the start of every phase. */
    public void clearQueueAndReadModel() throws Exception {
        database.truncate(QUEUE_AND_READ_MODEL);
        database.vacuumAnalyze(QUEUE_AND_READ_MODEL);
    }

    /** Dead rows cleared and statistics refreshed in every table, after business transactions changed the write tables. */
    public void vacuum() throws Exception {
        database.vacuumAnalyze(TABLES);
    }

    /**
     * Marks every order LIVE, as committed business transactions would: the store's own upsert, keys in key order,
     * {@value #MARK_PAGE} per transaction. Statistics are refreshed afterwards, so the claim plans see the queue.
     */
    public void markAll(PendingQueue queue, Clock clock) throws Exception {
        markFirst(orders, queue, clock);
    }

    /** The same for orders 1..{@code count} only. */
    public void markFirst(int count, PendingQueue queue, Clock clock) throws Exception {
        List<MarkKey> keys = new ArrayList<>(count);
        for (long id = 1; id <= count; id++) {
            keys.add(new MarkKey(OrderSearchProjection.NAME, "", Long.toString(id)));
        }
        keys.sort(null);
        try (Connection connection = database.connect()) {
            connection.setAutoCommit(false);
            for (int from = 0; from < keys.size(); from += MARK_PAGE) {
                queue.upsert(connection, keys.subList(from, Math.min(keys.size(), from + MARK_PAGE)), PendingQueue.LIVE,
                        clock.instant());
                connection.commit();
            }
        }
        database.vacuumAnalyze(QUEUE_AND_READ_MODEL);
    }

    /**
     * The read model made complete and exact in one statement, for phases that measure changes to a read model that
     * is already there.
     */
    public void fillReadModel() throws Exception {
        database.truncate("order_search");
        database.execute("""
                INSERT INTO order_search (order_id, customer, status, line_count, total, source_version)
                SELECT o.id, o.customer, o.status, COUNT(l.id), COALESCE(SUM(l.quantity * l.price), 0), o.version
                  FROM orders o LEFT JOIN order_lines l ON l.order_id = o.id
                 GROUP BY o.id""");
        database.vacuumAnalyze(QUEUE_AND_READ_MODEL);
    }

    /**
     * Deletes the orders a phase created (ids above the loaded ones) with their lines and read-model rows, so every
     * phase finds the same N orders. Their marks go with the next {@link #clearQueueAndReadModel}.
     */
    public void removeCreatedOrders() throws Exception {
        database.execute(
                "DELETE FROM order_search WHERE order_id > " + orders,
                "DELETE FROM order_lines WHERE order_id > " + orders,
                "DELETE FROM orders WHERE id > " + orders);
        vacuum();
    }

    public long pending() throws Exception {
        return database.count("SELECT COUNT(*) FROM projection_pending");
    }

    public BenchDatabase database() {
        return database;
    }
}
