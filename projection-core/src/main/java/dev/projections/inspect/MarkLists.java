package dev.projections.inspect;

import dev.projections.store.Dialect;
import dev.projections.store.LikePattern;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;

/**
 * The console's reads of {@code projection_pending} (docs/contract.md §12). Lists page by keyset, never by OFFSET: a page
 * continues after (or before) the sort key of the row it starts from, so page 1,000 costs what page 1 costs.
 * Within a projection the sort is (due time, tenant, id), which is {@code projection_pending_due_idx} (or the
 * partial {@code projection_pending_failing_idx} for failing marks); with a tenant fixed it is (due time, id) on
 * {@code projection_pending_tenant_due_idx}. On MariaDB and MySQL a page names its index and spells its keyset
 * condition out, so that it starts reading at its cursor (docs/pitfalls.md #57). Counts stop at a cap.
 */
public final class MarkLists {

    public static final int MAX_PAGE_SIZE = 500;

    private static final String COLUMNS = "projection, tenant_id, entity_id, available_at, first_marked_at, "
            + "claimed_until, attempts, last_failed_at, last_error, priority, mark_count, claimed_by";

    private static final String TENANT_COUNTS = """
            SELECT projection, tenant_id, COUNT(*), SUM(CASE WHEN attempts > 0 THEN 1 ELSE 0 END)
              FROM projection_pending
             GROUP BY projection, tenant_id
             ORDER BY projection, tenant_id%s
            """;

    private static final String ORPHANS = """
            SELECT p.projection, COUNT(*)
              FROM projection_pending p
             WHERE NOT EXISTS (SELECT 1 FROM projection_instance i
                                WHERE i.projection = p.projection AND i.last_seen > ?)
             GROUP BY p.projection
             ORDER BY p.projection
            """;

    /** The SQL of a page query on {@code dialect}: public for the test that reads its plan. */
    public String pageSql(Dialect dialect, MarkFilter filter, boolean forward, boolean fromCursor, int limit) {
        boolean tenantFixed = filter.tenant() != null;
        List<String> keyColumns = tenantFixed ? List.of("available_at", "entity_id")
                : List.of("available_at", "tenant_id", "entity_id");
        String index = tenantFixed ? "projection_pending_tenant_due_idx" : "projection_pending_due_idx";
        StringBuilder sql = new StringBuilder("SELECT ").append(COLUMNS).append(" FROM ")
                .append(dialect.tableReadBy("projection_pending", index)).append(where(filter));
        if (fromCursor) {
            sql.append(" AND ").append(dialect.keysetCondition(keyColumns, forward));
        }
        String direction = forward ? "" : " DESC";
        sql.append(" ORDER BY ").append(String.join(direction + ", ", keyColumns)).append(direction);
        return sql.append(dialect.firstRows(limit)).toString();
    }

    /**
     * Binds the parameters of {@link #pageSql}: the filter's at {@code now}, then the sort key of {@code cursor}
     * (none for a first page) as the dialect spells the keyset condition. Package-private for the plan tests.
     */
    static void bindPage(PreparedStatement statement, Dialect dialect, MarkFilter filter, Instant now,
                         PageCursor cursor) throws SQLException {
        int index = bindFilter(statement, dialect, filter, now);
        if (cursor != null) {
            List<Object> key = filter.tenant() != null
                    ? List.of(dialect.timestamp(cursor.availableAt()), cursor.id())
                    : List.of(dialect.timestamp(cursor.availableAt()), cursor.tenant(), cursor.id());
            for (Object value : dialect.keysetValues(key)) {
                statement.setObject(index++, value);
            }
        }
    }

    private static String where(MarkFilter filter) {
        return " WHERE projection = ?" + (filter.tenant() != null ? " AND tenant_id = ?" : "")
                + (filter.failingOnly() ? " AND attempts > 0" : "") + filter.state().condition
                + (filter.errorPrefix() != null ? " AND last_error LIKE ? ESCAPE '!'" : "");
    }

    private static int bindFilter(PreparedStatement statement, Dialect dialect, MarkFilter filter, Instant now)
            throws SQLException {
        int index = 1;
        statement.setString(index++, filter.projection());
        if (filter.tenant() != null) {
            statement.setString(index++, filter.tenant());
        }
        for (int i = 0; i < filter.state().parameters(); i++) {
            statement.setObject(index++, dialect.timestamp(now));
        }
        if (filter.errorPrefix() != null) {
            statement.setString(index++, LikePattern.startingWith(filter.errorPrefix()));
        }
        return index;
    }

    /** The first page of {@code filter}'s marks, earliest due first. */
    public MarkPage first(Connection connection, MarkFilter filter, Instant now, int size) throws SQLException {
        return page(connection, filter, now, null, true, size);
    }

    /** The page after {@code cursor} ({@code forward}) or before it. */
    public MarkPage page(Connection connection, MarkFilter filter, Instant now, PageCursor cursor, boolean forward,
                         int size) throws SQLException {
        if (size < 1 || size > MAX_PAGE_SIZE) {
            throw new IllegalArgumentException("page size must be 1.." + MAX_PAGE_SIZE + ", was " + size);
        }
        if (!forward && cursor == null) {
            throw new IllegalArgumentException("a previous page needs the cursor of the page it precedes");
        }
        List<MarkRow> rows = new ArrayList<>();
        Dialect dialect = Dialect.of(connection);
        try (PreparedStatement select = connection.prepareStatement(
                pageSql(dialect, filter, forward, cursor != null, size + 1))) {
            bindPage(select, dialect, filter, now, cursor);
            try (ResultSet result = select.executeQuery()) {
                while (result.next()) {
                    rows.add(row(dialect, result));
                }
            }
        }
        boolean more = rows.size() > size;
        if (more) {
            rows.remove(rows.size() - 1);
        }
        if (!forward) {
            Collections.reverse(rows);
        }
        // going forward from a cursor there is something before; going back, something after
        return forward ? new MarkPage(rows, cursor != null, more) : new MarkPage(rows, more, true);
    }

    /** How many marks {@code filter} matches, counted up to {@code cap} (then reported as capped). */
    public CappedCount count(Connection connection, MarkFilter filter, Instant now, int cap) throws SQLException {
        Dialect dialect = Dialect.of(connection);
        String sql = "SELECT COUNT(*) FROM (SELECT 1 FROM projection_pending" + where(filter)
                + dialect.firstRows(cap + 1) + ") capped";
        try (PreparedStatement select = connection.prepareStatement(sql)) {
            bindFilter(select, dialect, filter, now);
            try (ResultSet result = select.executeQuery()) {
                result.next();
                return new CappedCount(result.getLong(1), cap);
            }
        }
    }

    /** Pending and failing marks per projection and tenant, up to {@code limit} lines. */
    public List<TenantCounts> byTenant(Connection connection, int limit) throws SQLException {
        List<TenantCounts> counts = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement(
                TENANT_COUNTS.formatted(Dialect.of(connection).firstRows(limit)));
             ResultSet result = select.executeQuery()) {
            while (result.next()) {
                counts.add(new TenantCounts(result.getString(1), result.getString(2), result.getLong(3),
                        result.getLong(4)));
            }
        }
        return counts;
    }

    /**
     * Projections with marks that no instance has reported deploying within {@code window} (docs/contract.md §11: three
     * sweep intervals).
     */
    public List<OrphanedMarks> orphaned(Connection connection, Instant now, Duration window) throws SQLException {
        List<OrphanedMarks> orphans = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement(ORPHANS)) {
            select.setObject(1, Dialect.of(connection).timestamp(now.minus(window)));
            try (ResultSet result = select.executeQuery()) {
                while (result.next()) {
                    orphans.add(new OrphanedMarks(result.getString(1), result.getLong(2)));
                }
            }
        }
        return orphans;
    }

    /**
     * The most frequent errors among {@code filter}'s failing marks (docs/contract.md §12), most frequent first, at most
     * {@code limit} groups: errors are grouped by {@link ErrorGroup#headOf their head}, so "failure of k17" and
     * "failure of k18" are one group, and the group's head is the prefix its marks' list and bulk actions select by.
     * Reads the last errors of at most {@code scanCap} failing marks, so its cost does not grow with the failing marks;
     * on PostgreSQL they are read from the partial failing index, elsewhere (no partial indexes) the projection's range
     * of the queue is filtered until that many are found. {@link ErrorGroups#complete()} says whether all were read.
     */
    public ErrorGroups topErrors(Connection connection, MarkFilter filter, Instant now, int limit, int scanCap)
            throws SQLException {
        MarkFilter failing = new MarkFilter(filter.projection(), filter.tenant(), filter.state(), true,
                filter.errorPrefix());
        Map<String, Long> counts = new HashMap<>();
        int read = 0;
        boolean more = false;
        Dialect dialect = Dialect.of(connection);
        try (PreparedStatement select = connection.prepareStatement("SELECT last_error FROM projection_pending"
                + where(failing) + dialect.firstRows(scanCap + 1))) {
            bindFilter(select, dialect, failing, now);
            try (ResultSet result = select.executeQuery()) {
                while (result.next()) {
                    if (read == scanCap) {
                        more = true;
                        break;
                    }
                    read++;
                    counts.merge(ErrorGroup.headOf(result.getString(1)), 1L, Long::sum);
                }
            }
        }
        return new ErrorGroups(ErrorGroup.mergedByPrefix(counts).entrySet().stream()
                .map(e -> new ErrorGroup(e.getKey(), e.getValue()))
                .sorted(Comparator.comparingLong(ErrorGroup::count).reversed()
                        .thenComparing(ErrorGroup::head))
                .limit(limit).toList(), read, !more);
    }

    /** The SQL of {@link #findById} on {@code dialect}: public for the test that reads its plan. */
    public String findByIdSql(Dialect dialect, int limit) {
        return "SELECT " + COLUMNS + " FROM projection_pending WHERE entity_id = ? ORDER BY projection, tenant_id"
                + dialect.firstRows(limit);
    }

    /**
     * Every mark of entity {@code id}, across projections and tenants (at most {@code limit}), by
     * {@code projection_pending_entity_idx}: an operator asking "why is order 42 stale?" does not know where to look.
     */
    public List<MarkRow> findById(Connection connection, String id, int limit) throws SQLException {
        if (id == null || id.isBlank()) {
            throw new IllegalArgumentException("an entity id to find must not be blank, was \"" + id + "\"");
        }
        List<MarkRow> rows = new ArrayList<>();
        Dialect dialect = Dialect.of(connection);
        try (PreparedStatement select = connection.prepareStatement(findByIdSql(dialect, limit))) {
            select.setString(1, id); // as given: ids differing by a trailing space are different keys
            try (ResultSet result = select.executeQuery()) {
                while (result.next()) {
                    rows.add(row(dialect, result));
                }
            }
        }
        return rows;
    }

    private static MarkRow row(Dialect dialect, ResultSet result) throws SQLException {
        return new MarkRow(result.getString(1), result.getString(2), result.getString(3),
                dialect.instant(result, 4), dialect.instant(result, 5), dialect.instant(result, 6),
                result.getInt(7), dialect.instant(result, 8), result.getString(9), result.getInt(10),
                result.getLong(11), result.getString(12));
    }
}
