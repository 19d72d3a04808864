package dev.projections.store;

import dev.projections.RebuildProgress;
import dev.projections.RebuildScope;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What an operator reads of rebuild runs (docs/contract.md §7): a run's progress, the latest run of a projection and
 * tenant, the history, a run's partitions. Remaining marks are counted only for runs that may still have some, and
 * failing ones only for a run that ended with them.
 */
public final class RebuildHistory {

    /* remaining is counted for a run that may still have marks of its own: a running one, one left failing */
    static final String PROGRESS = """
            SELECT r.run_id, r.projection, r.tenant_id, r.state, r.marked, r.started_at, r.finished_at, r.last_error,
                   CASE WHEN r.state IN ('RUNNING', 'FINISHED_FAILING') THEN
                   (SELECT COUNT(*) FROM projection_pending p
                     WHERE p.projection = r.projection AND p.tenant_id = r.tenant_id AND p.priority = 1
                       AND (p.rebuild_run = r.run_id OR p.rebuild_run IS NULL AND p.first_marked_at >= r.started_at))
                   ELSE 0 END,
                   r.scope_from, r.scope_to, r.scope_changed_since, r.scope_filter, r.partitions, r.partitions_left,
                   r.started_by, r.cancelled_by,
                   (SELECT COALESCE(SUM(t.takeovers), 0) FROM projection_rebuild_partition t WHERE t.run_id = r.run_id),
                   r.kind, r.checked
              FROM projection_rebuild r
            """;

    private static final String PARTITIONS = """
            SELECT partition_no, range_after, range_up_to, cursor_id, exhausted, marked, owner_token, lease_until, takeovers,
                   walks
              FROM projection_rebuild_partition WHERE run_id = ? ORDER BY partition_no
            """;

    private final Dialect dialect;
    private final RebuildMarks marks;

    RebuildHistory(Dialect dialect, RebuildMarks marks) {
        this.dialect = dialect;
        this.marks = marks;
    }

    public Optional<RebuildProgress> progress(Connection connection, String runId, Instant now) throws SQLException {
        return first(runs(connection, PROGRESS + " WHERE r.run_id = ?", now, runId));
    }

    public Optional<RebuildProgress> latest(Connection connection, String projection, String tenant, Instant now)
            throws SQLException {
        return first(runs(connection, PROGRESS + " WHERE r.projection = ? AND r.tenant_id = ? ORDER BY r.started_at DESC"
                + dialect.firstRows(1), now, projection, tenant));
    }

    /** The newest {@code limit} runs, of one projection or ({@code null}) of all, newest first. */
    public List<RebuildProgress> history(Connection connection, String projection, int limit, Instant now)
            throws SQLException {
        String order = " ORDER BY r.started_at DESC, r.run_id" + dialect.firstRows(limit);
        return projection == null ? runs(connection, PROGRESS + order, now)
                : runs(connection, PROGRESS + " WHERE r.projection = ?" + order, now, projection);
    }

    /** A run's partitions, in order. */
    public List<RebuildPartition> partitions(Connection connection, String runId) throws SQLException {
        List<RebuildPartition> partitions = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement(PARTITIONS)) {
            select.setString(1, runId);
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    partitions.add(new RebuildPartition(rows.getInt(1), rows.getString(2), rows.getString(3),
                            rows.getString(4), rows.getBoolean(5), rows.getLong(6), rows.getString(7) != null,
                            dialect.instant(rows, 8), rows.getInt(9), RebuildPartitions.READ_MODEL.equals(rows.getString(10))));
                }
            }
        }
        return partitions;
    }

    private static Optional<RebuildProgress> first(List<RebuildProgress> runs) {
        return runs.isEmpty() ? Optional.empty() : Optional.of(runs.get(0));
    }

    private List<RebuildProgress> runs(Connection connection, String sql, Instant now, String... parameters)
            throws SQLException {
        List<RebuildProgress> runs = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement(sql)) {
            for (int i = 0; i < parameters.length; i++) {
                select.setString(i + 1, parameters[i]);
            }
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    String state = rows.getString(4);
                    long remaining = rows.getLong(9);
                    Instant started = dialect.instant(rows, 6);
                    Instant finished = dialect.instant(rows, 7);
                    long marked = rows.getLong(5);
                    double seconds = Math.max(0.001,
                            Duration.between(started, finished == null ? now : finished).toMillis() / 1000.0);
                    int partitions = rows.getInt(14);
                    long checked = rows.getLong(20);
                    // a verification's pace is the ids it checks, most of which it does not mark
                    double rate = (RebuildRun.VERIFY.equals(rows.getString(19)) ? checked : marked) / seconds;
                    runs.add(new RebuildProgress(rows.getString(1), rows.getString(2), rows.getString(3), state, marked,
                            remaining, 0, rate, started, finished, rows.getString(8), scope(dialect, rows, 10),
                            partitions, partitions - rows.getInt(15), rows.getString(16), rows.getString(17),
                            rows.getInt(18), rows.getString(19), checked));
                }
            }
        }
        // only a run that ended with failing marks counts them: a second scan of a big run's marks on every progress
        // poll would cost as much as the first
        List<RebuildProgress> counted = new ArrayList<>(runs.size());
        for (RebuildProgress run : runs) {
            counted.add(RebuildProgress.FINISHED_FAILING.equals(run.state()) && run.remaining() > 0
                    ? withFailing(run, marks.failing(connection, new RebuildMarks.RunMarks(run.projection(), run.tenant(),
                    run.runId(), run.startedAt()))) : run);
        }
        return counted;
    }

    private static RebuildProgress withFailing(RebuildProgress run, long failing) {
        return new RebuildProgress(run.runId(), run.projection(), run.tenant(), run.state(), run.marked(), run.remaining(),
                failing, run.ratePerSecond(), run.startedAt(), run.finishedAt(), run.lastError(), run.scope(),
                run.partitions(), run.partitionsDone(), run.startedBy(), run.cancelledBy(), run.takeovers(), run.kind(),
                run.checked());
    }

    /** The scope in four columns from {@code column}: from, to, changed since, filter. */
    static RebuildScope scope(Dialect dialect, ResultSet rows, int column) throws SQLException {
        return new RebuildScope(rows.getString(column), rows.getString(column + 1), dialect.instant(rows, column + 2),
                rows.getString(column + 3));
    }
}
