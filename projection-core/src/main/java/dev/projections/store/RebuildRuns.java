package dev.projections.store;

import dev.projections.RebuildProgress;
import dev.projections.RebuildScope;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.UUID;

/**
 * {@code projection_rebuild} (docs/contract.md §7): a run's life — started once per projection and tenant, stepped
 * through its {@link RebuildPartitions partitions}, failed, cancelled, finished once its ids are all marked and its
 * {@link RebuildMarks marks} refreshed. The run counts the partitions still listing ids ({@code partitions_left}): the
 * step that exhausts the last one marks the run's ids as all marked.
 */
public final class RebuildRuns {

    /*
     * owner_token and lease_until of the run row fence off instances of a release before partitions (change set 012)
     * during a rolling upgrade: their lease query takes a run whose own lease lapsed, and this one never lapses.
     */
    private static final String START = """
            INSERT INTO projection_rebuild (run_id, projection, tenant_id, state, marked, exhausted, started_at,
                                            running_projection, running_tenant, scope_from, scope_to,
                                            scope_changed_since, scope_filter, partitions, partitions_left, started_by,
                                            owner_token, lease_until, kind)
            VALUES (?, ?, ?, 'RUNNING', 0, FALSE, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'partitioned', ?, ?)
            """;

    /** The legacy run lease of a partitioned run: never lapses (see {@link #START}). */
    static final Instant LEGACY_FENCE = Instant.parse("9999-12-31T00:00:00Z");

    private static final String RUNNING_RUN =
            "SELECT run_id FROM projection_rebuild WHERE running_projection = ? AND running_tenant = ?";

    /*
     * The step's last statement, so that partitions stepped in parallel wait for each other only between it and their
     * commit. A cancel updates the same row first: a step that comes after it finds the run no longer RUNNING and rolls
     * back its marks; a step before it commits before the cancel, whose deletes then see its marks.
     */
    private static final String ADVANCE_RUN = """
            UPDATE projection_rebuild SET checked = checked + ?, marked = marked + ?, partitions_left = partitions_left - ?
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
                          AND (p.lease_until IS NULL OR p.lease_until <= ?) AND\s""" + RebuildPartitions.IDS_WALKED_FIRST
            + """
            ))
                OR r.state = 'CANCELLED' AND r.running_projection IS NOT NULL%s
            """;

    /* a run that is running, or cancelled with its marks not yet deleted, holds its projection and tenant */
    static final String ANY_ACTIVE = "SELECT 1 FROM projection_rebuild WHERE running_projection IS NOT NULL";

    private final Dialect dialect;
    private final RebuildPartitions partitions;
    private final RebuildMarks marks;
    private final LegacyRuns legacy;

    RebuildRuns(Dialect dialect, RebuildPartitions partitions, RebuildMarks marks) {
        this.dialect = dialect;
        this.partitions = partitions;
        this.marks = marks;
        this.legacy = new LegacyRuns(dialect, partitions);
    }

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
        return start(connection, RebuildRun.REBUILD, projection, tenant, scope, bounds, startedBy, now);
    }

    /**
     * As {@link #start(Connection, String, String, RebuildScope, List, String, Instant)}, a run of {@code kind}
     * ({@link RebuildRun#REBUILD} or {@link RebuildRun#VERIFY}): either kind excludes a second run of the projection and
     * tenant, of either kind, while it runs.
     */
    public String start(Connection connection, String kind, String projection, String tenant, RebuildScope scope,
                        List<String> bounds, String startedBy, Instant now) throws SQLException {
        if (!connection.getAutoCommit()) {
            return startIn(connection, kind, projection, tenant, scope, bounds, startedBy, now);
        }
        // called outside any transaction (the facade from code that has none): the run and its partitions are one
        // transaction all the same, or a failure between them leaves a RUNNING run that no step or adoption can take,
        // holding its projection and tenant until someone cancels it (engine review, minor observations)
        connection.setAutoCommit(false);
        try {
            String runId = startIn(connection, kind, projection, tenant, scope, bounds, startedBy, now);
            connection.commit();
            return runId;
        } catch (SQLException | RuntimeException | Error e) {
            connection.rollback();
            throw e;
        } finally {
            connection.setAutoCommit(true);
        }
    }

    private String startIn(Connection connection, String kind, String projection, String tenant, RebuildScope scope,
                           List<String> bounds, String startedBy, Instant now) throws SQLException {
        String running = runningRun(connection, projection, tenant);
        if (running != null) {
            throw new RebuildAlreadyRunningException(projection, tenant, running);
        }
        String runId = UUID.randomUUID().toString();
        // a verification of the whole id space also pages through the read model's own ids (docs/design.md D57)
        boolean readModel = RebuildRun.VERIFY.equals(kind) && scope.isEverything();
        int partitions = bounds.size() + 1 + (readModel ? 1 : 0);
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
            insert.setObject(i++, dialect.timestamp(LEGACY_FENCE));
            insert.setString(i, kind);
            insert.executeUpdate();
        } catch (SQLException e) {
            if (dialect.isDuplicateKey(e)) {
                // started by another caller between the check and the insert
                throw new RebuildAlreadyRunningException(projection, tenant, "just started");
            }
            throw e;
        }
        this.partitions.create(connection, runId, bounds, readModel);
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
     * Adopts the runs a previous release started after change set 012 whose own lease lapsed ({@link LegacyRuns});
     * returns how many.
     */
    public int adoptLegacyRuns(Connection connection, Instant now) throws SQLException {
        return legacy.adopt(connection, now);
    }

    /**
     * Records a step of a partition and ends its lease; false when the lease was lost or the run no longer runs
     * (cancelled, failed): the step must roll back.
     */
    public boolean advance(Connection connection, RebuildRun run, String cursor, int marked, boolean exhausted)
            throws SQLException {
        return advance(connection, run, cursor, marked, marked, exhausted);
    }

    /** As {@link #advance(Connection, RebuildRun, String, int, boolean)}, having looked at {@code checked} ids. */
    public boolean advance(Connection connection, RebuildRun run, String cursor, int checked, int marked,
                           boolean exhausted) throws SQLException {
        if (!partitions.advance(connection, run, cursor, checked, marked, exhausted)) {
            return false;
        }
        try (PreparedStatement update = connection.prepareStatement(ADVANCE_RUN)) {
            update.setInt(1, checked);
            update.setInt(2, marked);
            update.setInt(3, exhausted ? 1 : 0);
            update.setString(4, run.runId());
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

    /** Fails the run of a leased partition, when its ids cannot be listed; false when the lease was no longer its. */
    public boolean fail(Connection connection, RebuildRun run, String error, Instant now) throws SQLException {
        try (PreparedStatement update = connection.prepareStatement(dialect.lockingRead(connection, FAIL))) {
            update.setString(1, Statements.truncate(error));
            update.setObject(2, dialect.timestamp(now));
            update.setString(3, run.runId());
            update.setString(4, run.runId());
            update.setInt(5, run.partition());
            update.setString(6, run.token());
            return update.executeUpdate() == 1;
        }
    }

    /**
     * Cancels a running run: its partitions stop at their next step. Its rebuild marks are deleted afterwards, in
     * chunks, by {@link RebuildMarks#purgeCancelled}. False when the run was not running.
     */
    public boolean cancel(Connection connection, String runId, String by, Instant now) throws SQLException {
        try (PreparedStatement update = connection.prepareStatement(CANCEL)) {
            update.setObject(1, dialect.timestamp(now));
            update.setString(2, by == null ? null : Statements.truncate(by, 200));
            update.setString(3, runId);
            return update.executeUpdate() == 1;
        }
    }

    /**
     * Ends the exhausted runs that have nothing left to wait for; returns their ids. Each run is locked, then its marks
     * are read by statements of their own: a statement that read them while it waited for the run's row could, on
     * MariaDB, still see the marks from before the step that exhausted the run committed them, and end it FINISHED
     * with its last page pending.
     */
    public List<String> finishExhausted(Connection connection, Instant now) throws SQLException {
        List<String> exhausted = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement(EXHAUSTED_RUNS);
             ResultSet rows = select.executeQuery()) {
            while (rows.next()) {
                exhausted.add(rows.getString(1));
            }
        }
        List<String> finished = new ArrayList<>();
        for (String runId : exhausted) {
            RebuildMarks.RunMarks runMarks;
            try (PreparedStatement lock = connection.prepareStatement(LOCK_EXHAUSTED)) {
                lock.setString(1, runId);
                try (ResultSet rows = lock.executeQuery()) {
                    if (!rows.next()) {
                        continue; // ended meanwhile, or being ended by another instance
                    }
                    runMarks = new RebuildMarks.RunMarks(rows.getString(1), rows.getString(2), runId, dialect.instant(rows, 3));
                }
            }
            if (marks.anyRebuildMark(connection, runMarks, "attempts = 0")) {
                continue; // still being refreshed
            }
            // FINISHED_FAILING only where failing marks are left: "finished, N failing" never hides remaining marks
            String end = marks.anyRebuildMark(connection, runMarks, "attempts > 0")
                    ? RebuildProgress.FINISHED_FAILING : RebuildProgress.FINISHED;
            try (PreparedStatement update = connection.prepareStatement(FINISH)) {
                update.setString(1, end);
                update.setObject(2, dialect.timestamp(now));
                update.setString(3, runId);
                if (update.executeUpdate() == 1) {
                    finished.add(runId);
                }
            }
        }
        return finished;
    }

    /** Whether a partition can be stepped, a run waits to be finished, or a cancelled run's marks to be deleted. */
    public boolean hasWork(Connection connection, Collection<String> projections, Instant now) throws SQLException {
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

    /**
     * Whether any run is running or cancelled with marks left to delete: when none is, drainers need not look at the
     * rebuild tables at all. Read on the unique index of the running projection and tenant.
     */
    public boolean anyActive(Connection connection) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(ANY_ACTIVE + dialect.firstRows(1));
             ResultSet rows = select.executeQuery()) {
            return rows.next();
        }
    }

    private static String placeholders(Collection<String> values) {
        return String.join(", ", Collections.nCopies(values.size(), "?"));
    }
}
