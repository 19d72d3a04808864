package dev.projections.inspect;

import dev.projections.FailedRefresh;
import dev.projections.store.Dialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The counts of {@code projection_pending} that the gauges (docs/contract.md §9), the engine's overview and the
 * facade read: marks waiting, failing and parked per projection, the failing marks themselves, the last error, the
 * mark due the longest. Reads only; the console's lists of marks are {@link MarkLists}.
 */
public final class PendingCounts {

    private static final String COUNT_PARKED =
            "SELECT COUNT(*) FROM projection_pending WHERE projection = ? AND parked_at IS NOT NULL";

    private static final String COUNT_FAILING =
            "SELECT COUNT(*) FROM projection_pending WHERE projection = ? AND attempts > 0";

    private static final String FAILURES = """
            SELECT tenant_id, entity_id, attempts, last_error, last_failed_at, available_at
              FROM projection_pending
             WHERE projection = ? AND attempts > 0
             ORDER BY available_at, tenant_id, entity_id%s
            """;

    private static final String LONGEST_DUE = """
            SELECT first_marked_at FROM projection_pending WHERE projection = ? AND available_at <= ?
             ORDER BY available_at%s
            """;

    private static final String COUNTS = """
            SELECT projection, COUNT(*), SUM(CASE WHEN attempts > 0 THEN 1 ELSE 0 END),
                   MIN(CASE WHEN available_at <= ? THEN first_marked_at END),
                   SUM(CASE WHEN available_at <= ? THEN 1 ELSE 0 END),
                   SUM(CASE WHEN priority = 1 AND attempts > 0 THEN 1 ELSE 0 END),
                   SUM(CASE WHEN parked_at IS NOT NULL THEN 1 ELSE 0 END)
              FROM projection_pending GROUP BY projection
            """;

    private static final String LAST_ERROR = """
            SELECT last_error FROM projection_pending WHERE projection = ? AND attempts > 0
             ORDER BY last_failed_at DESC%s
            """;

    private static final String COUNT_PENDING = "SELECT COUNT(*) FROM projection_pending WHERE projection = ?";

    private final Dialect dialect;

    public PendingCounts(Dialect dialect) {
        this.dialect = dialect;
    }

    /** Parked marks of {@code projection}. */
    public long parked(Connection connection, String projection) throws SQLException {
        return countOf(connection, COUNT_PARKED, projection);
    }

    /** The read of a projection's longest-due mark: public for the test that reads its plan. */
    public String longestDueSql() {
        return LONGEST_DUE.formatted(dialect.firstRows(1));
    }

    /** Marks of {@code projection} with {@code attempts > 0}. */
    public long failing(Connection connection, String projection) throws SQLException {
        return countOf(connection, COUNT_FAILING, projection);
    }

    /** Failing marks of {@code projection}, next retry first. */
    public List<FailedRefresh> failures(Connection connection, String projection, int limit)
            throws SQLException {
        List<FailedRefresh> failures = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement(
                FAILURES.formatted(dialect.firstRows(Math.max(1, limit))))) {
            select.setString(1, projection);
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    failures.add(new FailedRefresh(rows.getString(1), rows.getString(2), rows.getInt(3),
                            rows.getString(4), dialect.instant(rows, 5), dialect.instant(rows, 6)));
                }
            }
        }
        return failures;
    }

    /**
     * {@code first_marked_at} of the mark of {@code projections} that has been due the longest at {@code now}, or
     * {@code null}: per projection the first due mark in {@code available_at} order (an index read, whatever the
     * backlog), then the oldest of those.
     */
    public Instant oldestDue(Connection connection, Collection<String> projections, Instant now) throws SQLException {
        Instant oldest = null;
        try (PreparedStatement select = connection.prepareStatement(longestDueSql())) {
            for (String projection : projections) {
                select.setString(1, projection);
                select.setObject(2, dialect.timestamp(now));
                try (ResultSet rows = select.executeQuery()) {
                    Instant first = rows.next() ? dialect.instant(rows, 1) : null;
                    if (first != null && (oldest == null || first.isBefore(oldest))) {
                        oldest = first;
                    }
                }
            }
        }
        return oldest;
    }

    /** One grouped query for every projection's gauges. */
    public Map<String, ProjectionCounts> countsByProjection(Connection connection, Instant now)
            throws SQLException {
        Map<String, ProjectionCounts> counts = new HashMap<>();
        try (PreparedStatement select = connection.prepareStatement(COUNTS)) {
            select.setObject(1, dialect.timestamp(now));
            select.setObject(2, dialect.timestamp(now));
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    Instant oldest = dialect.instant(rows, 4);
                    counts.put(rows.getString(1), new ProjectionCounts(rows.getLong(2), rows.getLong(3),
                            oldest == null ? Duration.ZERO : Duration.between(oldest, now), rows.getLong(5),
                            rows.getLong(6), rows.getLong(7)));
                }
            }
        }
        return counts;
    }

    /** The most recent error of {@code projection}'s failing marks, or {@code null}. */
    public String lastError(Connection connection, String projection) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(LAST_ERROR.formatted(dialect.firstRows(1)))) {
            select.setString(1, projection);
            try (ResultSet rows = select.executeQuery()) {
                return rows.next() ? rows.getString(1) : null;
            }
        }
    }

    /** Marks waiting for {@code projection}, all tenants, including those backing off. */
    public long pending(Connection connection, String projection) throws SQLException {
        return countOf(connection, COUNT_PENDING, projection);
    }

    /** The single count {@code sql} gives for {@code projection}. */
    private static long countOf(Connection connection, String sql, String projection) throws SQLException {
        try (PreparedStatement count = connection.prepareStatement(sql)) {
            count.setString(1, projection);
            try (ResultSet rows = count.executeQuery()) {
                rows.next();
                return rows.getLong(1);
            }
        }
    }
}
