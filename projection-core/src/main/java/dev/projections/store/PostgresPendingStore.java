package dev.projections.store;

import static dev.projections.store.Timestamps.utc;

import dev.projections.MarkKey;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

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

    /*
     * A batch's acks in two round trips instead of one or two per mark. The first statement locks every row of
     * the batch in key order (ON CONFLICT … DO UPDATE … WHERE false updates nothing but locks each conflicting row,
     * in the order of the rows inserted) and inserts, as a fresh LIVE mark, any key whose row is gone (another
     * worker took it over after our lease lapsed and acked it: our refresh may have overwritten theirs). Then the
     * single-key deletes go as one JDBC batch, each on the primary key, on rows already held. A set-based DELETE …
     * USING unnest(…) was tried: with stale statistics PostgreSQL read it through the tenant's due index, a scan of
     * the tenant's whole range per key (1.4 s for 100 keys on a bloated queue). Rows neither deleted nor inserted
     * are the rare missed acks, handled one by one, also on rows already held.
     */
    static final String LOCK_IN_KEY_ORDER = """
            INSERT INTO projection_pending AS p
                   (projection, tenant_id, entity_id, generation, mark_count, priority, attempts, available_at, first_marked_at)
            SELECT k.projection, k.tenant_id, k.entity_id, k.generation, 1, 0, 0, ?, ?
              FROM unnest(?::text[], ?::text[], ?::text[], ?::text[]) WITH ORDINALITY
                   AS k(projection, tenant_id, entity_id, generation, ord)
             ORDER BY k.ord
            ON CONFLICT (projection, tenant_id, entity_id) DO UPDATE SET generation = p.generation WHERE false
            RETURNING p.projection, p.tenant_id, p.entity_id
            """;

    @Override
    public List<AckOutcome> ackAll(Connection connection, List<ClaimedMark> sortedMarks, Instant now)
            throws SQLException {
        if (sortedMarks.size() < 2) {
            return super.ackAll(connection, sortedMarks, now);
        }
        Set<MarkKey> reinserted = lockInKeyOrder(connection, sortedMarks, now);
        int[] deleted = deleteUnchanged(connection, sortedMarks);
        List<AckOutcome> outcomes = new ArrayList<>(sortedMarks.size());
        for (int i = 0; i < sortedMarks.size(); i++) {
            ClaimedMark mark = sortedMarks.get(i);
            if (deleted[i] == 1) {
                outcomes.add(AckOutcome.SUCCESS);
            } else if (reinserted.contains(mark.key())) {
                outcomes.add(AckOutcome.REPEATED);
            } else {
                outcomes.add(missedAck(connection, mark, now));
            }
        }
        return outcomes;
    }

    /** Locks the marks' rows in key order; returns the keys whose row was gone and is now a fresh LIVE mark. */
    private static Set<MarkKey> lockInKeyOrder(Connection connection, List<ClaimedMark> sortedMarks, Instant now)
            throws SQLException {
        int n = sortedMarks.size();
        String[] projections = new String[n];
        String[] tenants = new String[n];
        String[] ids = new String[n];
        String[] fresh = new String[n];
        for (int i = 0; i < n; i++) {
            MarkKey key = sortedMarks.get(i).key();
            projections[i] = key.projection();
            tenants[i] = key.tenantId();
            ids[i] = key.entityId();
            fresh[i] = Generations.next();
        }
        Set<MarkKey> reinserted = new HashSet<>();
        try (PreparedStatement lock = connection.prepareStatement(LOCK_IN_KEY_ORDER)) {
            lock.setObject(1, utc(now));
            lock.setObject(2, utc(now));
            lock.setArray(3, connection.createArrayOf("text", projections));
            lock.setArray(4, connection.createArrayOf("text", tenants));
            lock.setArray(5, connection.createArrayOf("text", ids));
            lock.setArray(6, connection.createArrayOf("text", fresh));
            try (ResultSet rows = lock.executeQuery()) {
                while (rows.next()) {
                    reinserted.add(new MarkKey(rows.getString(1), rows.getString(2), rows.getString(3)));
                }
            }
        }
        return reinserted;
    }

    /** The deletes of unchanged marks, one round trip; the count of each, in order. */
    private static int[] deleteUnchanged(Connection connection, List<ClaimedMark> sortedMarks) throws SQLException {
        try (PreparedStatement delete = connection.prepareStatement(DELETE_IF_UNCHANGED)) {
            for (ClaimedMark mark : sortedMarks) {
                int i = bindKey(delete, 1, mark.key());
                delete.setString(i++, mark.generation());
                delete.setString(i, mark.token());
                delete.addBatch();
            }
            return delete.executeBatch();
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

    /** One fsync fewer between a business commit and its read model (docs/design.md D25). */
    @Override
    public void commitWithoutWaitingForDisk(Connection connection) throws SQLException {
        try (java.sql.Statement statement = connection.createStatement()) {
            statement.execute("SET LOCAL synchronous_commit TO OFF");
        }
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
