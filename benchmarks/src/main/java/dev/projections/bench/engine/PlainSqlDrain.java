package dev.projections.bench.engine;

import dev.projections.refresh.JdbcTransactions;
import dev.projections.bench.workload.OrderSearchProjection;
import dev.projections.bench.workload.OrderSearchSql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The bounds the engine is measured against: the least a queue drain in plain SQL can do with the same refresh
 * statements and the same pending table. No lease, no generation check, no failure handling — each worker locks due
 * marks with {@code SKIP LOCKED}, refreshes and deletes them in one transaction.
 */
public final class PlainSqlDrain {

    private static final String LOCK_DUE = """
            SELECT tenant_id, entity_id FROM projection_pending
             WHERE projection = ? AND available_at <= ?
             ORDER BY priority, available_at
             LIMIT ?
               FOR UPDATE SKIP LOCKED
            """;

    private static final String DELETE = "DELETE FROM projection_pending WHERE (projection, tenant_id, entity_id) IN (%s)";

    private static final Duration NO_TIMEOUT = Duration.ZERO;

    private final JdbcTransactions transactions;
    private final Clock clock;

    public PlainSqlDrain(JdbcTransactions transactions, Clock clock) {
        this.transactions = transactions;
        this.clock = clock;
    }

    /** Set-based: per transaction 100 marks, one set-based refresh, one delete. Nanoseconds. */
    public long setBased(int threads, int batch) throws Exception {
        return ParallelLoop.run(threads, "bound-set", () -> step(batch, true));
    }

    /** Per key: per transaction one mark, its refresh, its delete. Nanoseconds. */
    public long perKey(int threads) throws Exception {
        return ParallelLoop.run(threads, "bound-key", () -> step(1, false));
    }

    private boolean step(int batch, boolean setBased) throws Exception {
        return transactions.inNewTransaction(NO_TIMEOUT, connection -> {
            List<String[]> keys = lockDue(connection, batch);
            if (keys.isEmpty()) {
                return false;
            }
            long[] ids = keys.stream().mapToLong(k -> Long.parseLong(k[1])).toArray();
            if (setBased) {
                OrderSearchSql.refreshAll(connection, ids);
            } else {
                for (long id : ids) {
                    OrderSearchSql.refreshOne(connection, id);
                }
            }
            delete(connection, keys);
            return true;
        });
    }

    private List<String[]> lockDue(Connection connection, int limit) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(LOCK_DUE)) {
            select.setString(1, OrderSearchProjection.NAME);
            select.setObject(2, clock.instant().atOffset(ZoneOffset.UTC));
            select.setInt(3, limit);
            List<String[]> keys = new ArrayList<>(limit);
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    keys.add(new String[] {rows.getString(1), rows.getString(2)});
                }
            }
            return keys;
        }
    }

    private static void delete(Connection connection, List<String[]> keys) throws SQLException {
        String rows = String.join(", ", Collections.nCopies(keys.size(), "(?, ?, ?)"));
        try (PreparedStatement delete = connection.prepareStatement(DELETE.formatted(rows))) {
            int i = 1;
            for (String[] key : keys) {
                delete.setString(i++, OrderSearchProjection.NAME);
                delete.setString(i++, key[0]);
                delete.setString(i++, key[1]);
            }
            delete.executeUpdate();
        }
    }
}
