package dev.projections.store;

import static dev.projections.store.Statements.bindKey;

import dev.projections.MarkKey;
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

/**
 * The pending queue on MariaDB 10.6+ and MySQL 8.0+ ({@code SKIP LOCKED} arrived in MariaDB 10.6): its upsert and its
 * claim. The engine's transactions run at READ COMMITTED ({@link Dialect#beginEngineTransaction}, docs/design.md
 * D28); business transactions may run at the server's default, REPEATABLE READ, where the upsert they run at commit
 * goes without MariaDB's snapshot check ({@link SnapshotChecks}).
 */
final class MariaDbPendingQueue extends PendingQueue {

    MariaDbPendingQueue(String holder) {
        super(Dialect.MARIADB, holder);
    }

    /*
     * InnoDB inserts the rows of a multi-row INSERT in the order of its VALUES, taking each row's lock as it goes,
     * so the keys (sorted by the caller) are locked in key order, like PostgreSQL's unnest … WITH ORDINALITY. An
     * existing key takes the UPDATE branch, under the same record lock: no duplicate-key error, unlike H2's MERGE.
     * The assignments run left to right, each seeing the columns assigned before it; none reads a column assigned
     * earlier here. VALUES(column) is the inserted row's value (MySQL 8 deprecates it for a row alias that MariaDB
     * does not have, and still runs it).
     */
    private static final String UPSERT = """
            INSERT INTO projection_pending
                   (projection, tenant_id, entity_id, generation, mark_count, priority, attempts, available_at, first_marked_at,
                    first_marked_by, rebuild_run, traceparent)
            VALUES %s
            ON DUPLICATE KEY UPDATE
                   generation = VALUES(generation),
                   mark_count = mark_count + 1,
                   priority = LEAST(priority, VALUES(priority)),
                   available_at = CASE WHEN attempts > 0 THEN available_at ELSE VALUES(available_at) END,
                   rebuild_run = COALESCE(VALUES(rebuild_run), rebuild_run),
                   traceparent = COALESCE(VALUES(traceparent), traceparent)
            """;

    private static final String UPSERT_ROW = "(?, ?, ?, ?, 1, ?, 0, ?, ?, ?, ?, ?)";

    /**
     * Rows per upsert statement: a rebuild page of 5,000 ids would otherwise be 35,000 parameters, past what a server
     * prepared statement takes (65,535) for bigger pages. The statements follow each other in key order, so the
     * locks are still taken in key order.
     */
    static final int ROWS_PER_UPSERT = 1000;

    @Override
    public void upsert(Connection connection, List<MarkKey> sortedKeys, int priority, String rebuildRun,
                       String traceparent, Instant now) throws SQLException {
        for (int from = 0; from < sortedKeys.size(); from += ROWS_PER_UPSERT) {
            List<MarkKey> chunk = sortedKeys.subList(from, Math.min(sortedKeys.size(), from + ROWS_PER_UPSERT));
            String sql = UPSERT.formatted(String.join(", ", Collections.nCopies(chunk.size(), UPSERT_ROW)));
            try (PreparedStatement statement = connection.prepareStatement(SnapshotChecks.statement(connection, sql))) {
                int i = 1;
                for (MarkKey key : chunk) {
                    i = bindKey(statement, i, key);
                    statement.setString(i++, Generations.next());
                    statement.setInt(i++, priority);
                    statement.setObject(i++, dialect.timestamp(now));
                    statement.setObject(i++, dialect.timestamp(now));
                    statement.setString(i++, holder);
                    statement.setString(i++, rebuildRun);
                    statement.setString(i++, traceparent);
                }
                statement.executeUpdate();
            }
        }
    }

    /*
     * The claim reads its candidates without a lock and then locks them by primary key (docs/pitfalls.md #94). A
     * locking read through the claim index, as this claim once was, locks in due order, not key order; MariaDB keeps
     * the rows it read there and its WHERE rejected (those leased to other workers) locked until the claim commits,
     * and its SKIP LOCKED now and then waits for a claim index entry that another transaction's update or delete
     * holds. The claim then waited, holding rows that very transaction (an ack, a business commit) wanted next:
     * a deadlock, whose victim InnoDB picks by weight (rows changed plus locks held), so it may be the business
     * transaction. Through the primary key the claim locks only the rows it returns (a row its WHERE rejects is
     * unlocked at once) and no secondary index entry, and a statement of it that ever waited would hold only keys
     * smaller than the one it waits for, as every other writer of marks locks in key order.
     *
     * The candidates: as on PostgreSQL (docs/pitfalls.md #41), "projection IN (…) ORDER BY priority, available_at"
     * cannot read the claim index in order across projections, so each projection's due marks are read in the claim
     * index's order under a LIMIT of their own (MariaDbClaimPlanTest), and only those few are sorted and cut (marks due
     * at the same instant in key order). The paused check reads projection_control.
     */
    private static final String DUE_OF_ONE_PROJECTION = """
            (SELECT projection, tenant_id, entity_id, priority, available_at
               FROM projection_pending
              WHERE projection = ? AND priority >= ? AND available_at <= ?
                AND (claimed_until IS NULL OR claimed_until <= ?)
                AND NOT EXISTS (SELECT 1 FROM projection_control c
                                 WHERE c.projection = projection_pending.projection AND c.paused)
              ORDER BY priority, available_at
              LIMIT %d)""";

    /*
     * The lock of candidates, or of keys handed to a drainer: a range over the listed keys of the primary key (forced:
     * the entity index would serve the list as well), each row locked as it is read, in key order, and checked on its
     * latest committed version; one that is no longer claimable is unlocked at once, one another transaction holds is
     * skipped. The paused check reads projection_control without locking it (a locking read's subquery is a plain
     * read on MariaDB), so an instance taking a suspended projection's probe turn does not make its marks claimable.
     * Sorting what it locked keeps no other row locked: every row it returns is claimed.
     */
    private static final String LOCK_BY_KEY = """
            SELECT projection, tenant_id, entity_id, generation, attempts, priority, available_at, first_marked_at
              FROM projection_pending FORCE INDEX (PRIMARY)
             WHERE %s(projection, tenant_id, entity_id) IN (%s)%s
               AND available_at <= ? AND (claimed_until IS NULL OR claimed_until <= ?)
               AND NOT EXISTS (SELECT 1 FROM projection_control c
                                WHERE c.projection = projection_pending.projection AND c.paused)
             ORDER BY %s
               FOR UPDATE SKIP LOCKED""";

    /** The due candidates, read without a lock: one part per projection (public to the plan test). */
    String claimDueSql(int projections, int limit) {
        return String.join("\nUNION ALL\n", Collections.nCopies(projections, DUE_OF_ONE_PROJECTION.formatted(limit)))
                + "\nORDER BY priority, available_at, projection, tenant_id, entity_id LIMIT " + limit;
    }

    /** The lock of {@code keys} due candidates, in claim order. */
    String lockDueSql(int keys) {
        return LOCK_BY_KEY.formatted("", keyList(keys), "\n   AND priority >= ?",
                "priority, available_at, projection, tenant_id, entity_id");
    }

    /** The lock of {@code keys} handed keys of {@code projections} projections, in key order. */
    @Override
    String claimKeysSql(int keys, int projections) {
        return LOCK_BY_KEY.formatted("projection IN (" + String.join(", ", Collections.nCopies(projections, "?"))
                + ") AND ", keyList(keys), "", "projection, tenant_id, entity_id");
    }

    /*
     * A take's delete (docs/design.md D61): rows the claim by key has just locked, found by the primary key
     * (MariaDbClaimPlanTest); the lock held to the commit makes the commit their ack. Each key is its own equality: a
     * DELETE's row-constructor IN list, which takes no index hint, scans the whole table.
     */
    private static final String TAKE = "DELETE FROM projection_pending WHERE %s";

    /** The take of {@code keys} keys (package-private for the plan test). */
    String takeSql(int keys) {
        return TAKE.formatted(String.join(" OR ",
                Collections.nCopies(keys, "(projection = ? AND tenant_id = ? AND entity_id = ?)")));
    }

    /**
     * Locked by the claim by key without a lease, then deleted ({@code TAKE}): the commit is their ack, a rollback puts
     * them back: two statements where a claim, its lease and the ack are three. The lock may wait (docs/pitfalls.md
     * #94) past the transaction's timeout, so the delete runs only if the connection still says it is in a transaction
     * ({@code null} else: the keys are then claimed with a lease); and it must delete every row the lock returned.
     */
    @Override
    List<ClaimedMark> takeKeysInRefresh(Connection connection, Collection<MarkKey> keys,
                                        Collection<String> projections, Instant now, Duration lease, String token,
                                        String synchronousCommit) throws SQLException {
        List<ClaimedMark> locked;
        try (PreparedStatement lock = prepareClaimKeys(connection, keys, projections, now, true)) {
            if (connection.getAutoCommit()) {
                return null; // see PendingQueue.takeKeysInRefresh: asked once prepared
            }
            locked = held(lock, now, lease, token);
        }
        if (locked.isEmpty()) {
            return locked;
        }
        if (connection.getAutoCommit()) {
            return null; // the container ended the transaction while the lock waited: a delete now would be for good
        }
        try (PreparedStatement delete = connection.prepareStatement(takeSql(locked.size()))) {
            int i = 1;
            for (ClaimedMark mark : locked) {
                i = bindKey(delete, i, mark.key());
            }
            int deleted = delete.executeUpdate();
            if (deleted != locked.size()) { // rolled back with the transaction: the keys go the ordinary way
                throw new SQLException("a take deleted " + deleted + " of the " + locked.size() + " rows it locked");
            }
        }
        return locked;
    }

    private static String keyList(int keys) {
        return String.join(", ", Collections.nCopies(keys, "(?, ?, ?)"));
    }

    /**
     * Claims up to {@code limit} of the oldest due marks, live first: those of them no other transaction holds. A
     * candidate another claim took meanwhile is skipped, not replaced, so a claim beside others may come back short,
     * as on H2; the next look finds what is still due.
     */
    @Override
    public List<ClaimedMark> claimDue(Connection connection, Collection<String> projections, Instant now,
                                      Duration lease, String token, int limit, int fromPriority) throws SQLException {
        if (projections.isEmpty() || limit < 1) {
            return List.of();
        }
        List<MarkKey> candidates = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement(claimDueSql(projections.size(), limit))) {
            int i = 1;
            for (String projection : projections) {
                select.setString(i++, projection);
                select.setInt(i++, fromPriority);
                select.setObject(i++, dialect.timestamp(now));
                select.setObject(i++, dialect.timestamp(now));
            }
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    candidates.add(new MarkKey(rows.getString(1), rows.getString(2), rows.getString(3)));
                }
            }
        }
        if (candidates.isEmpty()) {
            return List.of();
        }
        // its subquery reads before it locks: without the check (SnapshotChecks)
        try (PreparedStatement lock = connection.prepareStatement(SnapshotChecks.statement(connection,
                lockDueSql(candidates.size())))) {
            int i = 1;
            for (MarkKey key : candidates) {
                i = bindKey(lock, i, key);
            }
            lock.setInt(i++, fromPriority);
            lock.setObject(i++, dialect.timestamp(now));
            lock.setObject(i, dialect.timestamp(now));
            return claim(connection, lock, now, lease, token);
        }
    }
}
