package dev.projections.bench.workload;

import dev.projections.Projection;
import dev.projections.bench.db.JdbcTransactions;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code order-search} as an application would write it without a set-based batch: {@code refreshAll} is the
 * interface's default, one {@link #refresh} per id in the batch's transaction. Every statement runs on the engine's
 * transaction ({@link JdbcTransactions#current()}), so the read model commits with the marks' acks.
 */
public class OrderSearchProjection implements Projection {

    public static final String NAME = "order-search";

    private static final String IDS = "SELECT id FROM orders WHERE id > ? ORDER BY id LIMIT ?";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public void refresh(String id) throws Exception {
        OrderSearchSql.refreshOne(JdbcTransactions.current(), Long.parseLong(id));
    }

    /**
     * Ids are numbers: the cursor is compared as a number, which is the order the page is sorted in (as strings,
     * "10" would sort before "9" and a rebuild would skip or repeat ids).
     */
    @Override
    public List<String> ids(String after, int limit) {
        Connection connection = JdbcTransactions.current();
        try (PreparedStatement select = connection.prepareStatement(IDS)) {
            select.setLong(1, after == null ? Long.MIN_VALUE : Long.parseLong(after));
            select.setInt(2, limit);
            List<String> ids = new ArrayList<>(limit);
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    ids.add(Long.toString(rows.getLong(1)));
                }
            }
            return ids;
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException("ids() of " + NAME + " after " + after + " failed", e);
        }
    }
}
