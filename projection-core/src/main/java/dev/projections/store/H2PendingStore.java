package dev.projections.store;

import dev.projections.MarkKey;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;

/** The pending table on H2, the demo's embedded default. */
final class H2PendingStore extends SqlPendingStore {

    private static final int MAX_TRIES = 5;

    H2PendingStore() {
        super(Dialect.H2);
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
                  available_at = CASE WHEN p.attempts > 0 THEN p.available_at ELSE ? END
             WHEN NOT MATCHED THEN INSERT
                  (projection, tenant_id, entity_id, generation, mark_count, priority, attempts, available_at, first_marked_at)
                  VALUES (k.projection, k.tenant_id, k.entity_id, k.generation, 1, ?, 0, ?, ?)
            """;

    /*
     * H2's MERGE checks for the row and inserts it in two steps: two transactions inserting the same new key
     * at once make one of them fail with a duplicate key. That key's statement is retried, and then takes the
     * MATCHED branch. Keys go one statement each, in key order: H2 runs the rest of a JDBC batch after a failed
     * entry, so retrying a whole batch would count its other keys twice and lock keys after the failed one
     * before it (out of key order, a deadlock with a concurrent upsert).
     */
    @Override
    public void upsert(Connection connection, List<MarkKey> sortedKeys, int priority, Instant now) throws SQLException {
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
                statement.setInt(7, priority);
                statement.setObject(8, dialect.timestamp(now));
                statement.setObject(9, dialect.timestamp(now));
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

    private static final String HEARTBEAT = """
            MERGE INTO projection_instance (instance_id, projection, last_seen) KEY (instance_id, projection)
            VALUES (?, ?, ?)
            """;

    private static final String SET_PAUSED = """
            MERGE INTO projection_control (projection, paused, paused_by, paused_at, suspended_reason, probed_at)
            KEY (projection) VALUES (?, ?, ?, ?, ?, NULL)
            """;

    /* WHEN MATCHED AND NOT paused: an operator's pause is never turned into a suspension */
    private static final String SUSPEND_IF_RUNNING = """
            MERGE INTO projection_control t
            USING (SELECT CAST(? AS VARCHAR(100)) AS projection, CAST(? AS VARCHAR(200)) AS by_user,
                          CAST(? AS TIMESTAMP WITH TIME ZONE) AS at_time, CAST(? AS VARCHAR(1000)) AS reason) s
               ON t.projection = s.projection
             WHEN MATCHED AND NOT t.paused THEN UPDATE SET paused = TRUE, paused_by = s.by_user,
                  paused_at = s.at_time, suspended_reason = s.reason, probed_at = NULL
             WHEN NOT MATCHED THEN INSERT (projection, paused, paused_by, paused_at, suspended_reason)
                  VALUES (s.projection, TRUE, s.by_user, s.at_time, s.reason)
            """;

    @Override
    public boolean suspendIfRunning(Connection connection, String projection, String reason, String user, Instant now)
            throws SQLException {
        return suspendIfRunning(connection, SUSPEND_IF_RUNNING, dialect, projection, reason, user, now);
    }

    @Override
    String heartbeatSql() {
        return HEARTBEAT;
    }

    @Override
    String setPausedSql() {
        return SET_PAUSED;
    }
}
