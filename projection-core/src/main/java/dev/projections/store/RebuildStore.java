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
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * The statements of {@code projection_rebuild} and {@code projection_rebuild_partition} (docs/contract.md §7), on every
 * {@link Dialect}. A run has one or more partitions, each with its own id range, cursor and lease; a partition is
 * stepped by whichever worker leases it, and the lease only lasts a step, so a partition whose worker died mid-step is
 * taken over when its lease lapses, and resumes from the cursor its last committed step left. The run counts the
 * partitions still listing ids ({@code partitions_left}): the step that exhausts the last one marks the run's ids
 * as all marked, and it finishes once its marks are refreshed.
 */
public final class RebuildStore {

    /*
     * owner_token and lease_until of the run row fence off instances of a release before partitions (change set 012)
     * during a rolling upgrade: their lease query takes a run whose own lease lapsed, and this one never lapses.
     */
    private static final String START = """
            INSERT INTO projection_rebuild (run_id, projection, tenant_id, state, marked, exhausted, started_at,
                                            running_projection, running_tenant, scope_from, scope_to,
                                            scope_changed_since, scope_filter, partitions, partitions_left, started_by,
                                            owner_token, lease_until)
            VALUES (?, ?, ?, 'RUNNING', 0, FALSE, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'partitioned', ?)
            """;

    /** The legacy run lease of a partitioned run: never lapses (see {@link #START}). */
    static final Instant LEGACY_FENCE = Instant.parse("9999-12-31T00:00:00Z");

    private static final String START_PARTITION = """
            INSERT INTO projection_rebuild_partition (run_id, partition_no, range_after, range_up_to, cursor_id,
                                                      exhausted, marked, takeovers)
            VALUES (?, ?, ?, ?, ?, FALSE, 0, 0)
            """;

    private static final String RUNNING_RUN =
            "SELECT run_id FROM projection_rebuild WHERE running_projection = ? AND running_tenant = ?";

    /*
     * Leasing reads the runnable partitions without a lock, oldest run first, then locks them one at a time until one
     * is still runnable and free. A single "ORDER BY … FOR UPDATE SKIP LOCKED" under a row limit locks every row it
     * sorts on H2 (docs/pitfalls.md #23) and on MariaDB (no index gives that order, so it sorts what it locked): a
     * second stepper would find nothing while the first leases. Partitions are few, so the extra statements cost
     * nothing.
     */
    private static final String LEASE_CANDIDATES = """
            SELECT p.run_id, p.partition_no FROM projection_rebuild_partition p
              JOIN projection_rebuild r ON r.run_id = p.run_id
             WHERE r.state = 'RUNNING' AND p.exhausted = FALSE AND r.projection IN (%s)
               AND (p.lease_until IS NULL OR p.lease_until <= ?)
             ORDER BY r.started_at, p.partition_no%s
            """;

    private static final String LOCK_CANDIDATE = """
            SELECT cursor_id, range_up_to, owner_token FROM projection_rebuild_partition
             WHERE run_id = ? AND partition_no = ? AND exhausted = FALSE AND (lease_until IS NULL OR lease_until <= ?)
               AND EXISTS (SELECT 1 FROM projection_rebuild r WHERE r.run_id = ? AND r.state = 'RUNNING')
               FOR UPDATE SKIP LOCKED
            """;

    /*
     * A run a previous release started after change set 012 (during a rolling upgrade) has no partition: that release
     * inserts only the run row, and steps it under the run row's own lease, which each of its steps sets and its
     * advance clears. Whenever no step of it holds that lease (between two steps, or for good once its instance
     * stopped) the run is adopted: fenced off from the previous release as 012 fenced the runs it converted — a step of
     * that release still under way then finds its token gone at its advance and rolls back — and given partition 0
     * from its cursor. Read without a lock first (a sweep finds none nearly always), then each one locked by its key
     * without waiting and checked again, so two adopters never both insert.
     */
    private static final String ORPHANED_LEGACY_RUNS = """
            SELECT run_id FROM projection_rebuild r
             WHERE state = 'RUNNING' AND (lease_until IS NULL OR lease_until <= ?)
               AND NOT EXISTS (SELECT 1 FROM projection_rebuild_partition p WHERE p.run_id = r.run_id)
            """;

    private static final String LOCK_ORPHANED_LEGACY_RUN = """
            SELECT run_id, cursor_id, exhausted, marked FROM projection_rebuild r
             WHERE run_id = ? AND state = 'RUNNING' AND (lease_until IS NULL OR lease_until <= ?)
               AND NOT EXISTS (SELECT 1 FROM projection_rebuild_partition p WHERE p.run_id = r.run_id)
               FOR UPDATE SKIP LOCKED
            """;

    private static final String FENCE_ADOPTED = """
            UPDATE projection_rebuild SET owner_token = 'partitioned', lease_until = ?, partitions = 1,
                   partitions_left = CASE WHEN exhausted THEN 0 ELSE 1 END
             WHERE run_id = ?
            """;

    private static final String ADOPT_PARTITION = """
            INSERT INTO projection_rebuild_partition (run_id, partition_no, range_after, range_up_to, cursor_id,
                                                      exhausted, marked, takeovers)
            VALUES (?, 0, NULL, NULL, ?, ?, ?, 0)
            """;

    private static final String RUN_OF_PARTITION = """
            SELECT projection, tenant_id, scope_from, scope_to, scope_changed_since, scope_filter
              FROM projection_rebuild WHERE run_id = ?
            """;

    /** At most this many candidates are tried per lease: the rest are held by other steppers right now. */
    private static final int CANDIDATES = 10;

    /* an owner still set on a lapsed lease is a step that never ended: its worker died or lost its database */
    private static final String SET_LEASE = """
            UPDATE projection_rebuild_partition
               SET owner_token = ?, lease_until = ?, takeovers = takeovers + ?
             WHERE run_id = ? AND partition_no = ?
            """;

    private static final String ADVANCE_PARTITION = """
            UPDATE projection_rebuild_partition
               SET cursor_id = ?, marked = marked + ?, exhausted = ?, owner_token = NULL, lease_until = NULL
             WHERE run_id = ? AND partition_no = ? AND owner_token = ?
            """;

    /*
     * The step's last statement, so that partitions stepped in parallel wait for each other only between it and their
     * commit. A cancel updates the same row first: a step that comes after it finds the run no longer RUNNING and rolls
     * back its marks; a step before it commits before the cancel, whose deletes then see its marks.
     */
    private static final String ADVANCE_RUN = """
            UPDATE projection_rebuild SET marked = marked + ?, partitions_left = partitions_left - ?
             WHERE run_id = ? AND state = 'RUNNING'
            """;

    /* a second statement: MariaDB assigns left to right, PostgreSQL from the old row; this reads the same on both */
    private static final String ALL_PARTITIONS_EXHAUSTED =
            "UPDATE projection_rebuild SET exhausted = TRUE WHERE run_id = ? AND partitions_left = 0";

    private static final String FAIL = """
            UPDATE projection_rebuild
               SET state = 'FAILED', last_error = ?, finished_at = ?, running_projection = NULL, running_tenant = NULL
             WHERE run_id = ? AND state = 'RUNNING'
               AND EXISTS (SELECT 1 FROM projection_rebuild_partition p
                            WHERE p.run_id = ? AND p.partition_no = ? AND p.owner_token = ?)
            """;

    /*
     * The run stays registered as running (running_projection, running_tenant) until its rebuild marks are deleted:
     * a new run of the same projection and tenant would mark at the same priority, and the deletes would take its marks.
     */
    private static final String CANCEL = """
            UPDATE projection_rebuild SET state = 'CANCELLED', finished_at = ?, cancelled_by = ?
             WHERE run_id = ? AND state = 'RUNNING'
            """;

    private static final String CANCELLED_WITH_MARKS = """
            SELECT run_id FROM projection_rebuild
             WHERE state = 'CANCELLED' AND running_projection IS NOT NULL%s ORDER BY finished_at%s
            """;

    /* one purger per run at a time; the others go on with other work */
    private static final String LOCK_CANCELLED = """
            SELECT projection, tenant_id, started_at FROM projection_rebuild
             WHERE run_id = ? AND state = 'CANCELLED' AND running_projection IS NOT NULL
               FOR UPDATE SKIP LOCKED
            """;

    private static final String RELEASE_CANCELLED =
            "UPDATE projection_rebuild SET running_projection = NULL, running_tenant = NULL WHERE run_id = ?";

    /*
     * A run is finished when its ids are all marked and none of its rebuild marks waits but failing ones: those stay as
     * failing marks (retry them) and must not keep the run, and every new run, blocked. The end state says which:
     * FINISHED with nothing left, FINISHED_FAILING with failing marks left, never FINISHED with remaining > 0.
     */
    private static final String EXHAUSTED_RUNS =
            "SELECT run_id FROM projection_rebuild WHERE state = 'RUNNING' AND exhausted = TRUE";

    private static final String LOCK_EXHAUSTED = """
            SELECT projection, tenant_id, started_at FROM projection_rebuild
             WHERE run_id = ? AND state = 'RUNNING' AND exhausted = TRUE
               FOR UPDATE SKIP LOCKED
            """;

    private static final String FINISH = """
            UPDATE projection_rebuild SET state = ?, finished_at = ?, running_projection = NULL, running_tenant = NULL
             WHERE run_id = ? AND state = 'RUNNING'
            """;

    private static final String ANY_WORK = """
            SELECT 1 FROM projection_rebuild r
             WHERE r.state = 'RUNNING' AND (r.exhausted = TRUE OR r.projection IN (%s) AND EXISTS (
                       SELECT 1 FROM projection_rebuild_partition p WHERE p.run_id = r.run_id AND p.exhausted = FALSE
                          AND (p.lease_until IS NULL OR p.lease_until <= ?)))
                OR r.state = 'CANCELLED' AND r.running_projection IS NOT NULL%s
            """;

    /*
     * A run's own marks: those its steps wrote or took over (rebuild_run, change set 015), never another run's of the
     * same projection and tenant; a mark a release before 015 wrote has no run, and is the run's when first marked
     * since it started, as that release judged (in two instances' clocks, only during the upgrade).
     */
    private static final String OWN_MARK = "(rebuild_run = ? OR rebuild_run IS NULL AND first_marked_at >= ?)";

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
                   (SELECT COALESCE(SUM(t.takeovers), 0) FROM projection_rebuild_partition t WHERE t.run_id = r.run_id)
              FROM projection_rebuild r
            """;

    private static final String PARTITIONS = """
            SELECT partition_no, range_after, range_up_to, cursor_id, exhausted, marked, owner_token, lease_until, takeovers
              FROM projection_rebuild_partition WHERE run_id = ? ORDER BY partition_no
            """;

    private static final String FAILING_REBUILD_MARKS =
            "SELECT COUNT(*) FROM projection_pending WHERE projection = ? AND tenant_id = ? AND priority = 1 AND attempts > 0"
            + " AND " + OWN_MARK;

    /** A whole run, one partition, started by nobody in particular (tests, the engine's own callers). */
    public String start(Connection connection, String projection, String tenant, Instant now) throws SQLException {
        return start(connection, projection, tenant, RebuildScope.everything(), List.of(), null, now);
    }

    /**
     * Starts a run of {@code scope}, cut by {@code bounds} (ascending, distinct) into {@code bounds.size() + 1}
     * partitions: partition k marks the ids after bound k - 1 up to bound k.
     */
    public String start(Connection connection, String projection, String tenant, RebuildScope scope,
                        List<String> bounds, String startedBy, Instant now) throws SQLException {
        String running = runningRun(connection, projection, tenant);
        if (running != null) {
            throw new RebuildAlreadyRunningException(projection, tenant, running);
        }
        String runId = UUID.randomUUID().toString();
        Dialect dialect = Dialect.of(connection);
        int partitions = bounds.size() + 1;
        try (PreparedStatement insert = connection.prepareStatement(START)) {
            int i = 1;
            insert.setString(i++, runId);
            insert.setString(i++, projection);
            insert.setString(i++, tenant);
            insert.setObject(i++, dialect.timestamp(now));
            insert.setString(i++, projection);
            insert.setString(i++, tenant);
            insert.setString(i++, scope.from());
            insert.setString(i++, scope.to());
            insert.setObject(i++, scope.changedSince() == null ? null : dialect.timestamp(scope.changedSince()));
            insert.setString(i++, scope.filter());
            insert.setInt(i++, partitions);
            insert.setInt(i++, partitions);
            insert.setString(i++, startedBy == null ? null : Statements.truncate(startedBy, 200));
            insert.setObject(i, dialect.timestamp(LEGACY_FENCE));
            insert.executeUpdate();
        } catch (SQLException e) {
            if (dialect.isDuplicateKey(e)) {
                // started by another caller between the check and the insert
                throw new RebuildAlreadyRunningException(projection, tenant, "just started");
            }
            throw e;
        }
        try (PreparedStatement insert = connection.prepareStatement(START_PARTITION)) {
            for (int k = 0; k < partitions; k++) {
                String after = k == 0 ? null : bounds.get(k - 1);
                insert.setString(1, runId);
                insert.setInt(2, k);
                insert.setString(3, after);
                insert.setString(4, k == partitions - 1 ? null : bounds.get(k));
                insert.setString(5, after);
                insert.addBatch();
            }
            insert.executeBatch();
        }
        return runId;
    }

    private static String runningRun(Connection connection, String projection, String tenant) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(RUNNING_RUN)) {
            select.setString(1, projection);
            select.setString(2, tenant);
            try (ResultSet rows = select.executeQuery()) {
                return rows.next() ? rows.getString(1) : null;
            }
        }
    }

    /**
     * Adopts the runs a previous release started after change set 012 whose own lease lapsed (see
     * {@link #ORPHANED_LEGACY_RUNS}); returns how many. Run by the sweep: without it such a run stays RUNNING for ever
     * and blocks every new run of its projection and tenant.
     */
    public int adoptLegacyRuns(Connection connection, Instant now) throws SQLException {
        Dialect dialect = Dialect.of(connection);
        List<String> candidates = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement(ORPHANED_LEGACY_RUNS)) {
            select.setObject(1, dialect.timestamp(now));
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    candidates.add(rows.getString(1));
                }
            }
        }
        List<Object[]> orphans = new ArrayList<>();
        for (String candidate : candidates) {
            try (PreparedStatement lock = connection.prepareStatement(lockingRead(connection, LOCK_ORPHANED_LEGACY_RUN))) {
                lock.setString(1, candidate);
                lock.setObject(2, dialect.timestamp(now));
                try (ResultSet rows = lock.executeQuery()) {
                    if (rows.next()) {
                        orphans.add(new Object[] {rows.getString(1), rows.getString(2), rows.getBoolean(3), rows.getLong(4)});
                    }
                }
            }
        }
        for (Object[] orphan : orphans) {
            try (PreparedStatement fence = connection.prepareStatement(FENCE_ADOPTED);
                 PreparedStatement insert = connection.prepareStatement(ADOPT_PARTITION)) {
                fence.setObject(1, dialect.timestamp(LEGACY_FENCE));
                fence.setString(2, (String) orphan[0]);
                fence.executeUpdate();
                insert.setString(1, (String) orphan[0]);
                insert.setString(2, (String) orphan[1]);
                insert.setBoolean(3, (Boolean) orphan[2]);
                insert.setLong(4, (Long) orphan[3]);
                insert.executeUpdate();
            }
        }
        return orphans.size();
    }

    /** Leases the first runnable partition of the oldest run of {@code projections} for one step. */
    public Optional<RebuildRun> lease(Connection connection, Collection<String> projections, Instant now,
                                      Duration lease, String token) throws SQLException {
        if (projections.isEmpty()) {
            return Optional.empty();
        }
        Dialect dialect = Dialect.of(connection);
        List<Object[]> candidates = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement(LEASE_CANDIDATES.formatted(
                placeholders(projections), dialect.firstRows(CANDIDATES)))) {
            int i = 1;
            for (String projection : projections) {
                select.setString(i++, projection);
            }
            select.setObject(i, dialect.timestamp(now));
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    candidates.add(new Object[] {rows.getString(1), rows.getInt(2)});
                }
            }
        }
        for (Object[] candidate : candidates) {
            String runId = (String) candidate[0];
            int partition = (Integer) candidate[1];
            try (PreparedStatement lock = connection.prepareStatement(lockingRead(connection, LOCK_CANDIDATE))) {
                lock.setString(1, runId);
                lock.setInt(2, partition);
                lock.setObject(3, dialect.timestamp(now));
                lock.setString(4, runId);
                try (ResultSet rows = lock.executeQuery()) {
                    if (rows.next()) {
                        RebuildRun run = leased(connection, runId, partition, rows.getString(1), rows.getString(2), token);
                        setLease(connection, run, now.plus(lease), rows.getString(3) != null);
                        return Optional.of(run);
                    }
                }
            }
        }
        return Optional.empty();
    }

    private static RebuildRun leased(Connection connection, String runId, int partition, String cursor, String upTo,
                                     String token) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(RUN_OF_PARTITION)) {
            select.setString(1, runId);
            try (ResultSet rows = select.executeQuery()) {
                rows.next();
                RebuildScope scope = scope(Dialect.of(connection), rows, 3);
                return new RebuildRun(runId, partition, rows.getString(1), rows.getString(2), cursor,
                        upTo == null ? scope : scope.withTo(upTo), token);
            }
        }
    }

    private static void setLease(Connection connection, RebuildRun run, Instant until, boolean takenOver)
            throws SQLException {
        try (PreparedStatement update = connection.prepareStatement(SET_LEASE)) {
            update.setString(1, run.token());
            update.setObject(2, Dialect.of(connection).timestamp(until));
            update.setInt(3, takenOver ? 1 : 0);
            update.setString(4, run.runId());
            update.setInt(5, run.partition());
            update.executeUpdate();
        }
    }

    /**
     * Records a step of a partition and ends its lease; false when the lease was lost or the run no longer runs
     * (cancelled, failed): the step must roll back.
     */
    public boolean advance(Connection connection, RebuildRun run, String cursor, int marked, boolean exhausted)
            throws SQLException {
        try (PreparedStatement update = connection.prepareStatement(ADVANCE_PARTITION)) {
            update.setString(1, cursor);
            update.setInt(2, marked);
            update.setBoolean(3, exhausted);
            update.setString(4, run.runId());
            update.setInt(5, run.partition());
            update.setString(6, run.token());
            if (update.executeUpdate() != 1) {
                return false;
            }
        }
        try (PreparedStatement update = connection.prepareStatement(ADVANCE_RUN)) {
            update.setInt(1, marked);
            update.setInt(2, exhausted ? 1 : 0);
            update.setString(3, run.runId());
            if (update.executeUpdate() != 1) {
                return false;
            }
        }
        if (exhausted) {
            try (PreparedStatement update = connection.prepareStatement(ALL_PARTITIONS_EXHAUSTED)) {
                update.setString(1, run.runId());
                update.executeUpdate();
            }
        }
        return true;
    }

    /** Fails the run of a leased partition, when its ids cannot be listed. */
    public void fail(Connection connection, RebuildRun run, String error, Instant now) throws SQLException {
        try (PreparedStatement update = connection.prepareStatement(lockingRead(connection, FAIL))) {
            update.setString(1, Statements.truncate(error));
            update.setObject(2, Dialect.of(connection).timestamp(now));
            update.setString(3, run.runId());
            update.setString(4, run.runId());
            update.setInt(5, run.partition());
            update.setString(6, run.token());
            update.executeUpdate();
        }
    }

    /**
     * Cancels a running run: its partitions stop at their next step. Its rebuild marks are deleted afterwards, in
     * chunks, by {@link #purgeCancelled}. False when the run was not running.
     */
    public boolean cancel(Connection connection, String runId, String by, Instant now) throws SQLException {
        try (PreparedStatement update = connection.prepareStatement(CANCEL)) {
            update.setObject(1, Dialect.of(connection).timestamp(now));
            update.setString(2, by == null ? null : Statements.truncate(by, 200));
            update.setString(3, runId);
            return update.executeUpdate() == 1;
        }
    }

    /**
     * Deletes up to {@code limit} marks of the oldest cancelled run that still has some (see
     * {@link PendingQueue#deleteCancelledRunMarks}), holding the run's row meanwhile, and releases the run's projection
     * and tenant for a new run once none is left — claimed ones included, which end by their ack or failure. Only run
     * {@code onlyRun} when given. Returns how many it deleted, or -1 when no cancelled run is left to purge (or another
     * purger holds it).
     */
    public int purgeCancelled(Connection connection, PendingQueue queue, String onlyRun, Instant now, int limit)
            throws SQLException {
        Dialect dialect = Dialect.of(connection);
        String runId;
        try (PreparedStatement select = connection.prepareStatement(CANCELLED_WITH_MARKS.formatted(
                onlyRun == null ? "" : " AND run_id = ?", dialect.firstRows(1)))) {
            if (onlyRun != null) {
                select.setString(1, onlyRun);
            }
            try (ResultSet rows = select.executeQuery()) {
                if (!rows.next()) {
                    return -1;
                }
                runId = rows.getString(1);
            }
        }
        String projection;
        String tenant;
        Instant started;
        try (PreparedStatement lock = connection.prepareStatement(LOCK_CANCELLED)) {
            lock.setString(1, runId);
            try (ResultSet rows = lock.executeQuery()) {
                if (!rows.next()) {
                    return -1;
                }
                projection = rows.getString(1);
                tenant = rows.getString(2);
                started = dialect.instant(rows, 3);
            }
        }
        int deleted = queue.deleteCancelledRunMarks(connection, projection, tenant, runId, started, now, limit);
        if (deleted < limit && !queue.hasCancelledRunMarks(connection, projection, tenant, runId, started)) {
            try (PreparedStatement update = connection.prepareStatement(RELEASE_CANCELLED)) {
                update.setString(1, runId);
                update.executeUpdate();
            }
        }
        return deleted;
    }

    /**
     * Ends the exhausted runs that have nothing left to wait for; returns how many. Each run is locked, then its marks
     * are read by statements of their own: a statement that read them while it waited for the run's row could, on
     * MariaDB, still see the marks from before the step that exhausted the run committed them, and end it FINISHED
     * with its last page pending.
     */
    public int finishExhausted(Connection connection, Instant now) throws SQLException {
        Dialect dialect = Dialect.of(connection);
        List<String> exhausted = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement(EXHAUSTED_RUNS);
             ResultSet rows = select.executeQuery()) {
            while (rows.next()) {
                exhausted.add(rows.getString(1));
            }
        }
        int finished = 0;
        for (String runId : exhausted) {
            RunMarks marks;
            try (PreparedStatement lock = connection.prepareStatement(LOCK_EXHAUSTED)) {
                lock.setString(1, runId);
                try (ResultSet rows = lock.executeQuery()) {
                    if (!rows.next()) {
                        continue; // ended meanwhile, or being ended by another instance
                    }
                    marks = new RunMarks(rows.getString(1), rows.getString(2), runId, dialect.instant(rows, 3));
                }
            }
            if (anyRebuildMark(connection, dialect, marks, "attempts = 0")) {
                continue; // still being refreshed
            }
            // FINISHED_FAILING only where failing marks are left: "finished, N failing" never hides remaining marks
            String end = anyRebuildMark(connection, dialect, marks, "attempts > 0")
                    ? RebuildProgress.FINISHED_FAILING : RebuildProgress.FINISHED;
            try (PreparedStatement update = connection.prepareStatement(FINISH)) {
                update.setString(1, end);
                update.setObject(2, dialect.timestamp(now));
                update.setString(3, runId);
                finished += update.executeUpdate();
            }
        }
        return finished;
    }

    /** Whose marks: a run's, of its projection and tenant, known by its id and its start. */
    private record RunMarks(String projection, String tenant, String runId, Instant started) {
        int bind(PreparedStatement statement, Dialect dialect) throws SQLException {
            statement.setString(1, projection);
            statement.setString(2, tenant);
            statement.setString(3, runId);
            statement.setObject(4, dialect.timestamp(started));
            return 5;
        }
    }

    /**
     * Whether a rebuild mark of a run (projection, tenant, run id, its start: {@link #OWN_MARK}) meeting
     * {@code condition} is pending.
     */
    static String rebuildMarkSql(Dialect dialect, String condition) {
        return "SELECT 1 FROM projection_pending WHERE projection = ? AND tenant_id = ? AND priority = 1 AND " + OWN_MARK
                + " AND " + condition + dialect.firstRows(1);
    }

    private static boolean anyRebuildMark(Connection connection, Dialect dialect, RunMarks marks, String condition)
            throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(rebuildMarkSql(dialect, condition))) {
            marks.bind(select, dialect);
            try (ResultSet rows = select.executeQuery()) {
                return rows.next();
            }
        }
    }

    /** Whether a partition can be stepped, a run waits to be finished, or a cancelled run's marks to be deleted. */
    public boolean hasWork(Connection connection, Collection<String> projections, Instant now) throws SQLException {
        Dialect dialect = Dialect.of(connection);
        // an empty IN () is not SQL: no projection deployed matches nothing
        Collection<String> names = projections.isEmpty() ? List.of("") : projections;
        try (PreparedStatement select = connection.prepareStatement(ANY_WORK.formatted(placeholders(names),
                dialect.firstRows(1)))) {
            int i = 1;
            for (String projection : names) {
                select.setString(i++, projection);
            }
            select.setObject(i, dialect.timestamp(now));
            try (ResultSet rows = select.executeQuery()) {
                return rows.next();
            }
        }
    }

    public Optional<RebuildProgress> progress(Connection connection, String runId, Instant now) throws SQLException {
        return first(runs(connection, PROGRESS + " WHERE r.run_id = ?", now, runId));
    }

    public Optional<RebuildProgress> latest(Connection connection, String projection, String tenant, Instant now)
            throws SQLException {
        return first(runs(connection, PROGRESS + " WHERE r.projection = ? AND r.tenant_id = ? ORDER BY r.started_at DESC"
                + Dialect.of(connection).firstRows(1), now, projection, tenant));
    }

    /** The newest {@code limit} runs, of one projection or ({@code null}) of all, newest first. */
    public List<RebuildProgress> history(Connection connection, String projection, int limit, Instant now)
            throws SQLException {
        String order = " ORDER BY r.started_at DESC, r.run_id" + Dialect.of(connection).firstRows(limit);
        return projection == null ? runs(connection, PROGRESS + order, now)
                : runs(connection, PROGRESS + " WHERE r.projection = ?" + order, now, projection);
    }

    /** A run's partitions, in order. */
    public List<RebuildPartition> partitions(Connection connection, String runId) throws SQLException {
        Dialect dialect = Dialect.of(connection);
        List<RebuildPartition> partitions = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement(PARTITIONS)) {
            select.setString(1, runId);
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    partitions.add(new RebuildPartition(rows.getInt(1), rows.getString(2), rows.getString(3),
                            rows.getString(4), rows.getBoolean(5), rows.getLong(6), rows.getString(7) != null,
                            dialect.instant(rows, 8), rows.getInt(9)));
                }
            }
        }
        return partitions;
    }

    private static Optional<RebuildProgress> first(List<RebuildProgress> runs) {
        return runs.isEmpty() ? Optional.empty() : Optional.of(runs.get(0));
    }

    private static List<RebuildProgress> runs(Connection connection, String sql, Instant now, String... parameters)
            throws SQLException {
        Dialect dialect = Dialect.of(connection);
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
                    runs.add(new RebuildProgress(rows.getString(1), rows.getString(2), rows.getString(3), state, marked,
                            remaining, 0, marked / seconds, started, finished, rows.getString(8), scope(dialect, rows, 10),
                            partitions, partitions - rows.getInt(15), rows.getString(16), rows.getString(17),
                            rows.getInt(18)));
                }
            }
        }
        // only a run that ended with failing marks counts them: a second scan of a big run's marks on every progress
        // poll would cost as much as the first
        List<RebuildProgress> counted = new ArrayList<>(runs.size());
        for (RebuildProgress run : runs) {
            counted.add(RebuildProgress.FINISHED_FAILING.equals(run.state()) && run.remaining() > 0
                    ? withFailing(run, failing(connection, dialect, new RunMarks(run.projection(), run.tenant(),
                    run.runId(), run.startedAt()))) : run);
        }
        return counted;
    }

    private static RebuildProgress withFailing(RebuildProgress run, long failing) {
        return new RebuildProgress(run.runId(), run.projection(), run.tenant(), run.state(), run.marked(), run.remaining(),
                failing, run.ratePerSecond(), run.startedAt(), run.finishedAt(), run.lastError(), run.scope(),
                run.partitions(), run.partitionsDone(), run.startedBy(), run.cancelledBy(), run.takeovers());
    }

    /** The scope in four columns from {@code column}: from, to, changed since, filter. */
    private static RebuildScope scope(Dialect dialect, ResultSet rows, int column) throws SQLException {
        return new RebuildScope(rows.getString(column), rows.getString(column + 1), dialect.instant(rows, column + 2),
                rows.getString(column + 3));
    }

    /* a statement whose subquery reads before it locks: on MariaDB without the snapshot check (SnapshotChecks) */
    private static String lockingRead(Connection connection, String sql) throws SQLException {
        return SnapshotChecks.statement(connection, sql);
    }

    private static String placeholders(Collection<String> values) {
        return String.join(", ", Collections.nCopies(values.size(), "?"));
    }

    private static long failing(Connection connection, Dialect dialect, RunMarks marks) throws SQLException {
        try (PreparedStatement count = connection.prepareStatement(FAILING_REBUILD_MARKS)) {
            marks.bind(count, dialect);
            try (ResultSet rows = count.executeQuery()) {
                rows.next();
                return rows.getLong(1);
            }
        }
    }
}
