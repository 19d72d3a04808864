package dev.projections.store;

import static dev.projections.store.Timestamps.utc;

import dev.projections.MarkKey;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Collection;
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

    /*
     * Claims with several projections: "projection IN (…) ORDER BY priority, available_at" cannot read the claim
     * index (projection, priority, available_at) in order across projections, so PostgreSQL sorted every due,
     * unleased row of them all for each claim (quadratic over a million-mark rebuild). Here each projection's
     * marks are read in index order under a LIMIT of their own, locked as they are read, and only those few
     * candidates (at most projections × limit) are sorted and cut. A candidate locked but cut stays locked until
     * the claim commits, milliseconds later; other claimers skip it meanwhile. Paused projections are left out
     * before their marks are read.
     */
    static final String CLAIM_DUE = """
            SELECT c.projection, c.tenant_id, c.entity_id, c.generation, c.attempts, c.priority
              FROM (SELECT u.projection FROM unnest(?::text[]) AS u(projection)
                     WHERE NOT EXISTS (SELECT 1 FROM projection_control ctl
                                        WHERE ctl.projection = u.projection AND ctl.paused)) AS d
             CROSS JOIN LATERAL (
                   SELECT p.projection, p.tenant_id, p.entity_id, p.generation, p.attempts, p.priority, p.available_at
                     FROM projection_pending p
                    WHERE p.projection = d.projection AND p.available_at <= ?
                      AND (p.claimed_until IS NULL OR p.claimed_until <= ?)
                    ORDER BY p.priority, p.available_at
                    LIMIT ?
                      FOR UPDATE SKIP LOCKED) AS c
             ORDER BY c.priority, c.available_at
             LIMIT ?
            """;

    @Override
    PreparedStatement prepareClaimDue(Connection connection, Collection<String> projections, Instant now, int limit)
            throws SQLException {
        PreparedStatement select = connection.prepareStatement(CLAIM_DUE);
        select.setArray(1, connection.createArrayOf("text", projections.toArray()));
        select.setObject(2, utc(now));
        select.setObject(3, utc(now));
        select.setInt(4, limit);
        select.setInt(5, limit);
        return select;
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
