package dev.projections.store;

import dev.projections.MarkKey;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;

/** The pending queue on H2, the demo's embedded default: its upsert. */
final class H2PendingQueue extends PendingQueue {

    /*
     * A duplicate key means another transaction's insert of that key committed meanwhile, so every retry follows
     * someone else's progress; but an ack may delete that row again before the retry reads it, and the retry then
     * races the next insert. With six transactions marking the same few keys while workers ack them, chains of 11
     * lost races were seen; a bound of 5 failed a business transaction in 3 of 3 runs of 1,500 commits per writer,
     * and once in CI. The bound only guards against a duplicate that does not go away, which the primary key
     * being the only unique index rules out.
     */
    private static final int MAX_TRIES = 1_000;

    H2PendingQueue(String holder) {
        super(Dialect.H2, holder);
    }

    private static final String UPSERT = """
            MERGE INTO projection_pending p
            USING (VALUES (CAST(? AS VARCHAR), CAST(? AS VARCHAR), CAST(? AS VARCHAR), CAST(? AS VARCHAR)))
                  AS k(projection, tenant_id, entity_id, generation)
               ON p.projection = k.projection AND p.tenant_id = k.tenant_id AND p.entity_id = k.entity_id
             WHEN MATCHED THEN UPDATE SET
                  generation = k.generation,
                  mark_count = p.mark_count + 1,
                  priority = LEAST(p.priority, ?),
                  available_at = CASE WHEN p.attempts > 0 THEN p.available_at ELSE ? END,
                  rebuild_run = COALESCE(CAST(? AS VARCHAR), p.rebuild_run),
                  traceparent = COALESCE(CAST(? AS VARCHAR), p.traceparent)
             WHEN NOT MATCHED THEN INSERT
                  (projection, tenant_id, entity_id, generation, mark_count, priority, attempts, available_at, first_marked_at,
                   first_marked_by, rebuild_run, traceparent)
                  VALUES (k.projection, k.tenant_id, k.entity_id, k.generation, 1, ?, 0, ?, ?, ?, ?, ?)
            """;

    /*
     * H2's MERGE checks for the row and inserts it in two steps: two transactions inserting the same new key
     * at once make one of them fail with a duplicate key. That key's statement is retried, and then takes the
     * MATCHED branch (or, if an ack deleted the row meanwhile, inserts it again). Keys go one statement each, in key order: H2 runs the rest of a JDBC batch after a failed
     * entry, so retrying a whole batch would count its other keys twice and lock keys after the failed one
     * before it (out of key order, a deadlock with a concurrent upsert).
     */
    @Override
    public void upsert(Connection connection, List<MarkKey> sortedKeys, int priority, String rebuildRun,
                       String traceparent, Instant now) throws SQLException {
        if (sortedKeys.isEmpty()) {
            return;
        }
        try (PreparedStatement statement = connection.prepareStatement(UPSERT)) {
            for (MarkKey key : sortedKeys) {
                statement.setString(1, key.projection());
                statement.setString(2, key.tenantId());
                statement.setString(3, key.entityId());
                statement.setString(4, Generations.next());
                statement.setInt(5, priority);
                statement.setObject(6, dialect.timestamp(now));
                statement.setString(7, rebuildRun);
                statement.setString(8, traceparent);
                statement.setInt(9, priority);
                statement.setObject(10, dialect.timestamp(now));
                statement.setObject(11, dialect.timestamp(now));
                statement.setString(12, holder);
                statement.setString(13, rebuildRun);
                statement.setString(14, traceparent);
                for (int attempt = 1; ; attempt++) {
                    try {
                        statement.executeUpdate();
                        break;
                    } catch (SQLException e) {
                        if (attempt >= MAX_TRIES || !dialect.isDuplicateKey(e)) {
                            throw e;
                        }
                    }
                }
            }
        }
    }
}
