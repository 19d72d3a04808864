package dev.projections.store;

import static dev.projections.store.Statements.bindKey;

import dev.projections.MarkKey;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
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
     * As on PostgreSQL (docs/pitfalls.md #41), "projection IN (…) ORDER BY priority, available_at" cannot read the
     * claim index in order across projections: MariaDB sorts, and a locking read that sorts keeps every row it
     * sorted locked, the whole due backlog, though it returns a batch. So each projection's marks are read in the
     * claim index's order under a LIMIT of their own, locked as they are read, and only those few candidates are
     * sorted and cut (marks due at the same instant in key order); a candidate locked but cut stays locked until the
     * claim commits, milliseconds later. At READ COMMITTED a row read and rejected by the WHERE is unlocked at once.
     * The paused check reads projection_control without locking it (a locking read's subquery is a plain read on
     * MariaDB), so an instance taking a suspended projection's probe turn does not make its marks claimable.
     */
    private static final String CLAIM_ONE_PROJECTION = """
            (SELECT projection, tenant_id, entity_id, generation, attempts, priority, available_at, first_marked_at
               FROM projection_pending
              WHERE projection = ? AND priority >= ? AND available_at <= ?
                AND (claimed_until IS NULL OR claimed_until <= ?)
                AND NOT EXISTS (SELECT 1 FROM projection_control c
                                 WHERE c.projection = projection_pending.projection AND c.paused)
              ORDER BY priority, available_at
              LIMIT %d
                FOR UPDATE SKIP LOCKED)""";

    /** The claim of due marks: one part per projection (public to the plan test). */
    String claimDueSql(int projections, int limit) {
        return String.join("\nUNION ALL\n", Collections.nCopies(projections, CLAIM_ONE_PROJECTION.formatted(limit)))
                + "\nORDER BY priority, available_at, projection, tenant_id, entity_id LIMIT " + limit;
    }

    @Override
    PreparedStatement prepareClaimDue(Connection connection, Collection<String> projections, Instant now, int limit,
                                      int fromPriority) throws SQLException {
        // its subqueries read before it locks: without the check (SnapshotChecks)
        PreparedStatement select = connection.prepareStatement(SnapshotChecks.statement(connection,
                claimDueSql(projections.size(), limit)));
        int i = 1;
        for (String projection : projections) {
            select.setString(i++, projection);
            select.setInt(i++, fromPriority);
            select.setObject(i++, dialect.timestamp(now));
            select.setObject(i++, dialect.timestamp(now));
        }
        return select;
    }
}
