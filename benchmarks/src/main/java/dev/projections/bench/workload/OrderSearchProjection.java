package dev.projections.bench.workload;

import dev.projections.Projection;
import dev.projections.RebuildScope;
import dev.projections.refresh.JdbcTransactions;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * {@code order-search} as an application would write it without a set-based batch: {@code refreshAll} is the
 * interface's default, one {@link #refresh} per id in the batch's transaction. Every statement runs on the engine's
 * transaction ({@link JdbcTransactions#current()}), so the read model commits with the marks' acks. Rebuilds may be
 * scoped by id range, and so split into partitions (numeric ranges of order ids, like the demo's).
 */
public class OrderSearchProjection implements Projection {

    public static final String NAME = "order-search";

    private static final String IDS = "SELECT id FROM orders WHERE id > ? ORDER BY id LIMIT ?";

    private static final String IDS_IN_RANGE =
            "SELECT id FROM orders WHERE id > ? AND id >= ? AND id <= ? ORDER BY id LIMIT ?";

    private static final String SPAN = "SELECT MIN(id), MAX(id) FROM orders WHERE id >= ? AND id <= ?";

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
        return page(IDS, limit, select -> {
            select.setLong(1, lowerExclusive(after));
            select.setInt(2, limit);
        }, after);
    }

    /** Id ranges only (from, to inclusive, numeric); a partition's upper bound arrives as {@code to}. */
    @Override
    public List<String> ids(String after, int limit, RebuildScope scope) {
        requireIdRangeOnly(scope);
        return page(IDS_IN_RANGE, limit, select -> {
            select.setLong(1, lowerExclusive(after));
            select.setLong(2, from(scope));
            select.setLong(3, to(scope));
            select.setInt(4, limit);
        }, after);
    }

    @Override
    public Set<RebuildScope.Kind> rebuildScopes() {
        return EnumSet.of(RebuildScope.Kind.ID_RANGE);
    }

    /** Cuts the scope's id span, lowest to highest, into n equal ranges of ids (as the demo's order-search does). */
    @Override
    public List<String> partitionBounds(RebuildScope scope, int n) {
        requireIdRangeOnly(scope);
        Connection connection = JdbcTransactions.current();
        long low;
        long high;
        try (PreparedStatement select = connection.prepareStatement(SPAN)) {
            select.setLong(1, from(scope));
            select.setLong(2, to(scope));
            try (ResultSet rows = select.executeQuery()) {
                rows.next();
                low = rows.getLong(1);
                if (rows.wasNull()) {
                    return List.of();
                }
                high = rows.getLong(2);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("partitionBounds() of " + NAME + " for " + scope + " failed", e);
        }
        TreeSet<Long> bounds = new TreeSet<>();
        for (int k = 1; k < n; k++) {
            long bound = low + (long) ((double) (high - low) * k / n);
            if (bound >= low && bound < high) {
                bounds.add(bound);
            }
        }
        List<String> ids = new ArrayList<>(bounds.size());
        bounds.forEach(bound -> ids.add(Long.toString(bound)));
        return ids;
    }

    private interface Parameters {
        void set(PreparedStatement select) throws SQLException;
    }

    private static List<String> page(String sql, int limit, Parameters parameters, String after) {
        Connection connection = JdbcTransactions.current();
        try (PreparedStatement select = connection.prepareStatement(sql)) {
            parameters.set(select);
            List<String> ids = new ArrayList<>(limit);
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    ids.add(Long.toString(rows.getLong(1)));
                }
            }
            return ids;
        } catch (SQLException e) {
            throw new IllegalStateException("ids() of " + NAME + " after " + after + " failed", e);
        }
    }

    private static long lowerExclusive(String after) {
        return after == null ? Long.MIN_VALUE : Long.parseLong(after);
    }

    private static long from(RebuildScope scope) {
        return scope.from() == null ? Long.MIN_VALUE : Long.parseLong(scope.from());
    }

    private static long to(RebuildScope scope) {
        return scope.to() == null ? Long.MAX_VALUE : Long.parseLong(scope.to());
    }

    /* the engine refuses other kinds before a run starts (rebuildScopes()); this guards a direct call */
    private static void requireIdRangeOnly(RebuildScope scope) {
        if (scope.changedSince() != null || scope.filter() != null) {
            throw new IllegalArgumentException(NAME + " rebuilds by id range only, not " + scope);
        }
    }
}
