package dev.projections.store;

import static dev.projections.store.Timestamps.utc;

import dev.projections.MarkKey;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;

/** The pending table on PostgreSQL. */
final class PostgresPendingStore extends SqlPendingStore {

    /*
     * One statement for all keys of a transaction: the rows come out of unnest in the order the arrays give
     * them (sorted by the caller, WITH ORDINALITY keeps it), so every committing transaction locks pending
     * rows in key order and two of them cannot deadlock on each other's keys.
     */
    private static final String UPSERT = """
            INSERT INTO projection_pending AS p
                   (projection, tenant_id, entity_id, generation, mark_count, priority, attempts, available_at, first_marked_at)
            SELECT k.projection, k.tenant_id, k.entity_id, k.generation, 1, ?, 0, ?, ?
              FROM unnest(?::text[], ?::text[], ?::text[], ?::text[]) WITH ORDINALITY
                   AS k(projection, tenant_id, entity_id, generation, ord)
             ORDER BY k.ord
            ON CONFLICT (projection, tenant_id, entity_id) DO UPDATE SET
                   generation = EXCLUDED.generation,
                   mark_count = p.mark_count + 1,
                   priority = LEAST(p.priority, EXCLUDED.priority),
                   available_at = CASE WHEN p.attempts > 0 THEN p.available_at ELSE EXCLUDED.available_at END
            """;

    @Override
    public void upsert(Connection connection, List<MarkKey> sortedKeys, int priority, Instant now) throws SQLException {
        if (sortedKeys.isEmpty()) {
            return;
        }
        int n = sortedKeys.size();
        String[] projections = new String[n];
        String[] tenants = new String[n];
        String[] ids = new String[n];
        String[] generations = new String[n];
        for (int i = 0; i < n; i++) {
            MarkKey key = sortedKeys.get(i);
            projections[i] = key.projection();
            tenants[i] = key.tenantId();
            ids[i] = key.entityId();
            generations[i] = Generations.next();
        }
        try (PreparedStatement statement = connection.prepareStatement(UPSERT)) {
            statement.setInt(1, priority);
            statement.setObject(2, utc(now));
            statement.setObject(3, utc(now));
            statement.setArray(4, connection.createArrayOf("text", projections));
            statement.setArray(5, connection.createArrayOf("text", tenants));
            statement.setArray(6, connection.createArrayOf("text", ids));
            statement.setArray(7, connection.createArrayOf("text", generations));
            statement.executeUpdate();
        }
    }

    private static final String HEARTBEAT = """
            INSERT INTO projection_instance (instance_id, projection, last_seen) VALUES (?, ?, ?)
            ON CONFLICT (instance_id, projection) DO UPDATE SET last_seen = EXCLUDED.last_seen
            """;


    private static final String SET_PAUSED = """
            INSERT INTO projection_control (projection, paused, paused_by, paused_at) VALUES (?, ?, ?, ?)
            ON CONFLICT (projection) DO UPDATE SET paused = EXCLUDED.paused, paused_by = EXCLUDED.paused_by,
                   paused_at = EXCLUDED.paused_at
            """;

    @Override
    String heartbeatSql() {
        return HEARTBEAT;
    }

    @Override
    String setPausedSql() {
        return SET_PAUSED;
    }
}
