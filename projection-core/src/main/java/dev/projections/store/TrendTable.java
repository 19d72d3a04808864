package dev.projections.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.time.Duration;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code projection_trend}: a row per projection, minute and instance, written by that instance's sweep (docs/contract.md
 * §12, trends). A row is added to rather than replaced: an instance restarted within a minute reports that minute again
 * with what its new process saw, and both halves count. The same statements on every database: an update, then an
 * insert when there was nothing to update. Only an instance's own sweep, one at a time, writes its rows, so no two
 * writers race for one.
 */
public final class TrendTable {

    private static final String ADD = """
            UPDATE projection_trend
               SET pending = COALESCE(?, pending), due_now = COALESCE(?, due_now), failing = COALESCE(?, failing),
                   refreshes = refreshes + ?, failures = failures + ?,
                   p99_micros = COALESCE(GREATEST(p99_micros, ?), ?, p99_micros),
                   lag_histogram = CASE WHEN LENGTH(lag_histogram) > 15000 THEN lag_histogram
                                        ELSE COALESCE(%s, ?, lag_histogram) END
             WHERE projection = ? AND sampled_minute = ? AND instance_id = ?
            """;

    /* text joined with NULL is NULL on both: PostgreSQL's and H2's CONCAT would skip a NULL instead */
    private static final String JOINED = "lag_histogram || ' ' || ?";
    private static final String JOINED_MARIADB = "CONCAT(lag_histogram, ' ', ?)";

    private static final String INSERT = """
            INSERT INTO projection_trend (projection, sampled_minute, instance_id, pending, due_now, failing, refreshes,
                                          failures, p99_micros, lag_histogram)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """;

    /* the key's order: one projection's minutes in a range, each minute's instances together */
    private static final String READ = """
            SELECT sampled_minute, MAX(pending), MAX(due_now), MAX(failing), SUM(refreshes), SUM(failures),
                   MAX(p99_micros), COUNT(*)
              FROM projection_trend
             WHERE projection = ? AND sampled_minute >= ? AND sampled_minute < ?
             GROUP BY sampled_minute
             ORDER BY sampled_minute
            """;

    /* by the key's prefix: one index probe per projection */
    static final String BACKLOGS_COUNTED = """
            SELECT COUNT(DISTINCT projection) FROM projection_trend
             WHERE projection IN (%s) AND sampled_minute = ? AND pending IS NOT NULL
            """;

    /* one projection's lag texts of a window, by the key's prefix; every projection's by the minute index */
    private static final String LAGS = """
            SELECT lag_histogram FROM projection_trend
             WHERE projection = ? AND sampled_minute >= ? AND sampled_minute < ? AND lag_histogram IS NOT NULL
            """;

    static final String ALL_LAGS = """
            SELECT projection, lag_histogram FROM projection_trend
             WHERE sampled_minute >= ? AND sampled_minute < ? AND lag_histogram IS NOT NULL
            """;

    private static final String OLDEST = "SELECT MIN(sampled_minute) FROM projection_trend";

    private static final String PRUNE = "DELETE FROM projection_trend WHERE sampled_minute < ?";

    /* the overview: every projection's minutes of one window, by the minute index */
    private static final String READ_ALL = """
            SELECT projection, sampled_minute, MAX(pending), MAX(due_now), MAX(failing), SUM(refreshes), SUM(failures),
                   MAX(p99_micros), COUNT(*)
              FROM projection_trend
             WHERE sampled_minute >= ? AND sampled_minute < ?
             GROUP BY projection, sampled_minute
             ORDER BY projection, sampled_minute
            """;

    /** An hour of rows at most per prune, so that one prune stays short however far behind it is. */
    static final Duration PRUNE_SPAN = Duration.ofHours(1);

    private final Dialect dialect;

    TrendTable(Dialect dialect) {
        this.dialect = dialect;
    }

    /** Adds {@code samples} of {@code instanceId} to their rows, in key order. */
    public void add(Connection connection, String instanceId, List<TrendSample> samples) throws SQLException {
        List<TrendSample> sorted = new ArrayList<>(samples);
        sorted.sort(Comparator.comparing(TrendSample::projection).thenComparing(TrendSample::minute));
        try (PreparedStatement update = connection.prepareStatement(
                ADD.formatted(dialect.pick(JOINED, JOINED, JOINED_MARIADB)));
             PreparedStatement insert = connection.prepareStatement(INSERT)) {
            for (TrendSample sample : sorted) {
                bindNumber(update, 1, sample.pending());
                bindNumber(update, 2, sample.dueNow());
                bindNumber(update, 3, sample.failing());
                update.setLong(4, sample.refreshes());
                update.setLong(5, sample.failures());
                bindNumber(update, 6, sample.p99Micros());
                bindNumber(update, 7, sample.p99Micros());
                // a restarted process's lag is joined to the first's as text, which adds up (TrendSample); a row
                // rewritten so often that its text grew past 15,000 characters keeps what it has
                update.setString(8, sample.lag());
                update.setString(9, sample.lag());
                update.setString(10, sample.projection());
                update.setObject(11, dialect.timestamp(sample.minute()));
                update.setString(12, instanceId);
                if (update.executeUpdate() > 0) {
                    continue;
                }
                insert.setString(1, sample.projection());
                insert.setObject(2, dialect.timestamp(sample.minute()));
                insert.setString(3, instanceId);
                bindNumber(insert, 4, sample.pending());
                bindNumber(insert, 5, sample.dueNow());
                bindNumber(insert, 6, sample.failing());
                insert.setLong(7, sample.refreshes());
                insert.setLong(8, sample.failures());
                bindNumber(insert, 9, sample.p99Micros());
                insert.setString(10, sample.lag());
                insert.executeUpdate();
            }
        }
    }

    /**
     * Whether some instance has written the backlog of {@code minute} for every one of {@code projections} already:
     * the backlog describes the shared queue, so one count per minute serves every instance.
     */
    public boolean backlogsCounted(Connection connection, Collection<String> projections, Instant minute)
            throws SQLException {
        if (projections.isEmpty()) {
            return true;
        }
        String sql = backlogsCountedSql(projections.size());
        try (PreparedStatement select = connection.prepareStatement(sql)) {
            int i = 1;
            for (String projection : projections) {
                select.setString(i++, projection);
            }
            select.setObject(i, dialect.timestamp(minute));
            try (ResultSet rows = select.executeQuery()) {
                return rows.next() && rows.getLong(1) >= projections.size();
            }
        }
    }

    static String backlogsCountedSql(int projections) {
        return BACKLOGS_COUNTED.formatted(String.join(", ", Collections.nCopies(projections, "?")));
    }

    /** The minutes of {@code projection} from {@code from} (inclusive) to {@code to} (exclusive), oldest first. */
    public List<TrendPoint> read(Connection connection, String projection, Instant from, Instant to)
            throws SQLException {
        return ofProjection(connection, READ, projection, from, to, rows -> point(rows, 1));
    }

    /** Every projection's minutes from {@code from} (inclusive) to {@code to} (exclusive), by projection. */
    public Map<String, List<TrendPoint>> readAll(Connection connection, Instant from, Instant to)
            throws SQLException {
        return byProjection(connection, READ_ALL, from, to, rows -> point(rows, 2));
    }

    /**
     * The lag texts of {@code projection}'s minutes from {@code from} (inclusive) to {@code to} (exclusive), every
     * instance's: the trend package adds them up into percentiles.
     */
    public List<String> lags(Connection connection, String projection, Instant from, Instant to) throws SQLException {
        return ofProjection(connection, LAGS, projection, from, to, rows -> rows.getString(1));
    }

    /** Every projection's lag texts from {@code from} (inclusive) to {@code to} (exclusive), by projection. */
    public Map<String, List<String>> lags(Connection connection, Instant from, Instant to)
            throws SQLException {
        return byProjection(connection, ALL_LAGS, from, to, rows -> rows.getString(2));
    }

    /** One row's value, read from the columns after the projection's. */
    private interface Row<T> {
        T read(ResultSet rows) throws SQLException;
    }

    private <T> List<T> ofProjection(Connection connection, String sql, String projection, Instant from, Instant to,
                                     Row<T> row) throws SQLException {
        List<T> values = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement(sql)) {
            select.setString(1, projection);
            select.setObject(2, dialect.timestamp(from));
            select.setObject(3, dialect.timestamp(to));
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    values.add(row.read(rows));
                }
            }
        }
        return values;
    }

    /** {@code sql} selects the projection first, then what {@code row} reads. */
    private <T> Map<String, List<T>> byProjection(Connection connection, String sql, Instant from,
                                                            Instant to, Row<T> row) throws SQLException {
        Map<String, List<T>> values = new TreeMap<>();
        try (PreparedStatement select = connection.prepareStatement(sql)) {
            select.setObject(1, dialect.timestamp(from));
            select.setObject(2, dialect.timestamp(to));
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    values.computeIfAbsent(rows.getString(1), p -> new ArrayList<>()).add(row.read(rows));
                }
            }
        }
        return values;
    }

    /**
     * Deletes minutes before {@code before}, from the oldest on and at most {@link #PRUNE_SPAN} of them; returns how
     * many rows went. A prune far behind (a lowered retention, a long downtime) catches up an hour per call.
     */
    public int prune(Connection connection, Instant before) throws SQLException {
        Instant oldest;
        try (PreparedStatement select = connection.prepareStatement(OLDEST); ResultSet rows = select.executeQuery()) {
            oldest = rows.next() ? dialect.instant(rows, 1) : null;
        }
        if (oldest == null || !oldest.isBefore(before)) {
            return 0;
        }
        Instant upTo = oldest.plus(PRUNE_SPAN).isBefore(before) ? oldest.plus(PRUNE_SPAN) : before;
        try (PreparedStatement delete = connection.prepareStatement(PRUNE)) {
            delete.setObject(1, dialect.timestamp(upTo));
            return delete.executeUpdate();
        }
    }

    /** A minute read by {@link #READ} or {@link #READ_ALL}, its columns from {@code first} on. */
    private TrendPoint point(ResultSet rows, int first) throws SQLException {
        return new TrendPoint(dialect.instant(rows, first), number(rows, first + 1), number(rows, first + 2),
                number(rows, first + 3), rows.getLong(first + 4), rows.getLong(first + 5), number(rows, first + 6),
                rows.getInt(first + 7));
    }

    private static void bindNumber(PreparedStatement statement, int index, Long value) throws SQLException {
        if (value == null) {
            statement.setNull(index, Types.BIGINT);
        } else {
            statement.setLong(index, value);
        }
    }

    private static Long number(ResultSet rows, int column) throws SQLException {
        long value = rows.getLong(column);
        return rows.wasNull() ? null : value;
    }
}
