package dev.projections.store;

import static dev.projections.store.PostgresAckStatements.DELETE_BY_ADDRESS;
import static dev.projections.store.PostgresAckStatements.DELETE_CLAIMED_ROW;
import static dev.projections.store.PostgresAckStatements.DELETE_HELD_ROWS;
import static dev.projections.store.PostgresAckStatements.LOCK_IN_KEY_ORDER;
import static dev.projections.store.PostgresClaimStatements.BOUNDED_LOCK_WAITS;
import static dev.projections.store.PostgresClaimStatements.CLAIM_DUE;
import static dev.projections.store.PostgresClaimStatements.CLAIM_IN_ONE_STATEMENT;
import static dev.projections.store.PostgresClaimStatements.COMMIT_WITHOUT_WAITING;
import static dev.projections.store.PostgresClaimStatements.LOCK_DUE;

import dev.projections.MarkKey;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The pending queue on PostgreSQL: its upsert, its claim and ack by row address, and claims that commit without
 * waiting for the disk.
 */
final class PostgresPendingQueue extends PendingQueue {

    PostgresPendingQueue(String holder) {
        super(Dialect.POSTGRESQL, holder);
    }

    /*
     * One statement for all keys of a transaction: the rows come out of unnest in the order the arrays give
     * them (sorted by the caller, WITH ORDINALITY keeps it), so every committing transaction locks pending
     * rows in key order and two of them cannot deadlock on each other's keys.
     */
    private static final String UPSERT = """
            INSERT INTO projection_pending AS p
                   (projection, tenant_id, entity_id, generation, mark_count, priority, attempts, available_at, first_marked_at,
                    first_marked_by, rebuild_run, traceparent)
            SELECT k.projection, k.tenant_id, k.entity_id, k.generation, 1, ?, 0, ?, ?, ?, ?, ?
              FROM unnest(?::text[], ?::text[], ?::text[], ?::text[]) WITH ORDINALITY
                   AS k(projection, tenant_id, entity_id, generation, ord)
             ORDER BY k.ord
            ON CONFLICT (projection, tenant_id, entity_id) DO UPDATE SET
                   generation = EXCLUDED.generation,
                   mark_count = p.mark_count + 1,
                   priority = LEAST(p.priority, EXCLUDED.priority),
                   available_at = CASE WHEN p.attempts > 0 THEN p.available_at ELSE EXCLUDED.available_at END,
                   rebuild_run = COALESCE(EXCLUDED.rebuild_run, p.rebuild_run),
                   traceparent = COALESCE(EXCLUDED.traceparent, p.traceparent)
            """;

    @Override
    public void upsert(Connection connection, List<MarkKey> sortedKeys, int priority, String rebuildRun,
                       String traceparent, Instant now) throws SQLException {
        if (sortedKeys.isEmpty()) {
            return;
        }
        try (PreparedStatement statement = connection.prepareStatement(UPSERT)) {
            statement.setInt(1, priority);
            statement.setObject(2, dialect.timestamp(now));
            statement.setObject(3, dialect.timestamp(now));
            statement.setString(4, holder);
            statement.setString(5, rebuildRun);
            statement.setString(6, traceparent);
            bindKeysWithFreshGenerations(connection, statement, 7, sortedKeys, new String[sortedKeys.size()]);
            statement.executeUpdate();
        }
    }

    /** A row as the lock statement returned it. */
    private record Held(String generation, String token, String address) {
    }

    @Override
    public AckOutcome ack(Connection connection, ClaimedMark mark, Instant now) throws SQLException {
        return ackAll(connection, List.of(mark), now).get(0);
    }

    @Override
    public List<AckOutcome> ackAll(Connection connection, List<ClaimedMark> sortedMarks, Instant now)
            throws SQLException {
        if (sortedMarks.isEmpty()) {
            return List.of();
        }
        if (sortedMarks.size() == 1 && deletedAsClaimed(connection, sortedMarks.get(0))) {
            return List.of(AckOutcome.SUCCESS);
        }
        String[] fresh = new String[sortedMarks.size()];
        Map<MarkKey, Held> held = lockInKeyOrder(connection,
                sortedMarks.stream().map(ClaimedMark::key).toList(), now, fresh);
        List<AckOutcome> outcomes = new ArrayList<>(sortedMarks.size());
        List<String> unchanged = new ArrayList<>();
        List<ClaimedMark> missed = new ArrayList<>();
        for (int i = 0; i < sortedMarks.size(); i++) {
            ClaimedMark mark = sortedMarks.get(i);
            Held row = held.get(mark.key());
            if (row == null || row.generation().equals(fresh[i])) {
                outcomes.add(AckOutcome.REPEATED); // its row was gone: marked anew
            } else if (row.generation().equals(mark.generation()) && mark.token().equals(row.token())) {
                unchanged.add(row.address());
                outcomes.add(AckOutcome.SUCCESS);
            } else {
                missed.add(mark);
                outcomes.add(null);
            }
        }
        byTable(connection, DELETE_BY_ADDRESS, 1, unchanged, delete -> { });
        if (!missed.isEmpty()) {
            // on rows already held: by address, as everything else that ends a claim here
            RowLocator byAddress = RowLocator.byAddress(addressesOf(held));
            for (int i = 0; i < sortedMarks.size(); i++) {
                if (outcomes.get(i) == null) {
                    outcomes.set(i, missedAck(connection, sortedMarks.get(i), now, byAddress));
                }
            }
        }
        return outcomes;
    }

    @Override
    List<AckOutcome> ackHeld(Connection connection, List<ClaimedMark> sortedMarks, Instant now) throws SQLException {
        Map<Long, List<String>> tids = new TreeMap<>();
        for (ClaimedMark mark : sortedMarks) {
            if (mark.address() == null || !mark.token().equals(sortedMarks.get(0).token())) {
                return ackAll(connection, sortedMarks, now);
            }
            int space = mark.address().indexOf(' ');
            tids.computeIfAbsent(Long.parseLong(mark.address().substring(0, space)), oid -> new ArrayList<>())
                    .add(mark.address().substring(space + 1));
        }
        Set<String> deleted = new HashSet<>();
        try (PreparedStatement delete = connection.prepareStatement(DELETE_HELD_ROWS)) {
            for (Map.Entry<Long, List<String>> table : tids.entrySet()) {
                delete.setLong(1, table.getKey());
                delete.setArray(2, connection.createArrayOf("text", table.getValue().toArray()));
                try (ResultSet rows = delete.executeQuery()) {
                    while (rows.next()) {
                        deleted.add(rows.getString(1));
                    }
                }
            }
        }
        List<ClaimedMark> missed = sortedMarks.stream().filter(mark -> !deleted.contains(mark.address())).toList();
        Iterator<AckOutcome> missedOutcomes = ackAll(connection, missed, now).iterator(); // none, as the rows are held
        return sortedMarks.stream()
                .map(mark -> deleted.contains(mark.address()) ? AckOutcome.SUCCESS : missedOutcomes.next()).toList();
    }

    private boolean deletedAsClaimed(Connection connection, ClaimedMark mark) throws SQLException {
        if (mark.address() == null) {
            return false;
        }
        int space = mark.address().indexOf(' ');
        try (PreparedStatement delete = connection.prepareStatement(DELETE_CLAIMED_ROW)) {
            delete.setLong(1, Long.parseLong(mark.address().substring(0, space)));
            delete.setString(2, mark.address().substring(space + 1));
            delete.setString(3, mark.generation());
            delete.setString(4, mark.token());
            return delete.executeUpdate() == 1;
        }
    }

    /**
     * Locks the keys' rows in key order, as the acks do, and finds them by address from then on: a statement by key
     * could be planned on the tenant's due index (see LOCK_IN_KEY_ORDER). A key whose row was gone is marked anew.
     */
    @Override
    RowLocator locate(Connection connection, List<MarkKey> sortedKeys, Instant now) throws SQLException {
        if (sortedKeys.isEmpty()) {
            return RowLocator.BY_KEY;
        }
        return RowLocator.byAddress(addressesOf(lockInKeyOrder(connection, sortedKeys, now,
                new String[sortedKeys.size()])));
    }

    private static Map<MarkKey, String> addressesOf(Map<MarkKey, Held> held) {
        Map<MarkKey, String> addresses = new HashMap<>();
        held.forEach((key, row) -> addresses.put(key, row.address()));
        return addresses;
    }

    /** Locks the keys' rows in key order; returns each key's row, a gone one inserted with its {@code fresh} generation. */
    private Map<MarkKey, Held> lockInKeyOrder(Connection connection, List<MarkKey> sortedKeys,
                                                              Instant now, String[] fresh) throws SQLException {
        Map<MarkKey, Held> held = new HashMap<>();
        try (PreparedStatement lock = connection.prepareStatement(LOCK_IN_KEY_ORDER)) {
            lock.setObject(1, dialect.timestamp(now));
            lock.setObject(2, dialect.timestamp(now));
            lock.setString(3, holder);
            bindKeysWithFreshGenerations(connection, lock, 4, sortedKeys, fresh);
            try (ResultSet rows = lock.executeQuery()) {
                while (rows.next()) {
                    held.put(new MarkKey(rows.getString(1), rows.getString(2), rows.getString(3)),
                            new Held(rows.getString(4), rows.getString(5), rows.getString(6)));
                }
            }
        }
        return held;
    }

    /**
     * Binds {@code sortedKeys} as four text arrays from parameter {@code first} on — projections, tenants, ids, and a
     * new generation for each, written into {@code fresh} — the unnest of the upsert and of the lock in key order.
     */
    private static void bindKeysWithFreshGenerations(Connection connection, PreparedStatement statement, int first,
                                                     List<MarkKey> sortedKeys, String[] fresh) throws SQLException {
        int n = sortedKeys.size();
        String[] projections = new String[n];
        String[] tenants = new String[n];
        String[] ids = new String[n];
        for (int i = 0; i < n; i++) {
            MarkKey key = sortedKeys.get(i);
            projections[i] = key.projection();
            tenants[i] = key.tenantId();
            ids[i] = key.entityId();
            fresh[i] = Generations.next();
        }
        statement.setArray(first, connection.createArrayOf("text", projections));
        statement.setArray(first + 1, connection.createArrayOf("text", tenants));
        statement.setArray(first + 2, connection.createArrayOf("text", ids));
        statement.setArray(first + 3, connection.createArrayOf("text", fresh));
    }

    @Override
    PreparedStatement prepareClaimDue(Connection connection, Collection<String> projections, Instant now, int limit,
                                      int fromPriority) throws SQLException {
        PreparedStatement select = connection.prepareStatement(claimStatement(CLAIM_DUE));
        int i = 1 + claimParameters();
        select.setArray(i++, connection.createArrayOf("text", projections.toArray()));
        select.setInt(i++, fromPriority);
        select.setObject(i++, dialect.timestamp(now));
        select.setObject(i++, dialect.timestamp(now));
        select.setInt(i++, limit);
        select.setInt(i, limit);
        return select;
    }

    /**
     * A batch's due marks in the refresh's transaction: locked, not written (see {@code LOCK_DUE}); each carries
     * {@code token} and the lease only for the engine's bookkeeping, and its row's address for {@link #ackHeld}.
     */
    @Override
    List<ClaimedMark> claimDueInRefresh(Connection connection, Collection<String> projections, Instant now,
                                        Duration lease, String token, int limit, int fromPriority) throws SQLException {
        if (projections.isEmpty() || limit < 1) {
            return List.of();
        }
        try (PreparedStatement select = connection.prepareStatement(LOCK_DUE)) {
            select.setArray(1, connection.createArrayOf("text", projections.toArray()));
            select.setInt(2, fromPriority);
            select.setObject(3, dialect.timestamp(now));
            select.setObject(4, dialect.timestamp(now));
            select.setInt(5, limit);
            select.setInt(6, limit);
            return held(select, now, lease, token);
        }
    }

    @Override
    PreparedStatement prepareClaimKeys(Connection connection, Collection<MarkKey> keys, Collection<String> projections,
                                       Instant now, boolean inRefreshTransaction) throws SQLException {
        String candidates = PostgresClaimStatements.keysCandidates(keys.size());
        PreparedStatement select = connection.prepareStatement(inRefreshTransaction
                ? claimStatementInRefresh(candidates) : claimStatement(candidates));
        bindKeys(connection, select, 1 + claimParameters(), keys, projections, now);
        return select;
    }

    /**
     * {@link PostgresClaimStatements#keysCandidates}' parameters from {@code i} on: the keys (one key's three values, or
     * any other count as three arrays), the projections, the due time.
     */
    private void bindKeys(Connection connection, PreparedStatement select, int i, Collection<MarkKey> keys,
                          Collection<String> projections, Instant now) throws SQLException {
        if (keys.size() == 1) {
            MarkKey key = keys.iterator().next();
            select.setString(i++, key.projection());
            select.setString(i++, key.tenantId());
            select.setString(i++, key.entityId());
            bindDue(connection, select, i, projections, now);
            return;
        }
        String[] projectionOfKey = new String[keys.size()];
        String[] tenants = new String[keys.size()];
        String[] ids = new String[keys.size()];
        int k = 0;
        for (MarkKey key : keys) {
            projectionOfKey[k] = key.projection();
            tenants[k] = key.tenantId();
            ids[k++] = key.entityId();
        }
        select.setArray(i++, connection.createArrayOf("text", projectionOfKey));
        select.setArray(i++, connection.createArrayOf("text", tenants));
        select.setArray(i++, connection.createArrayOf("text", ids));
        bindDue(connection, select, i, projections, now);
    }

    private void bindDue(Connection connection, PreparedStatement select, int i, Collection<String> projections,
                         Instant now) throws SQLException {
        select.setArray(i++, connection.createArrayOf("text", projections.toArray()));
        select.setObject(i++, dialect.timestamp(now));
        select.setObject(i, dialect.timestamp(now));
    }

    /** Deleted by the claim itself ({@code TAKE_ONE_KEY}, {@code TAKE_KEYS}). */
    @Override
    List<ClaimedMark> takeKeysInRefresh(Connection connection, Collection<MarkKey> keys,
                                        Collection<String> projections, Instant now, Duration lease, String token,
                                        String synchronousCommit) throws SQLException {
        try (PreparedStatement take = connection.prepareStatement(
                PostgresClaimStatements.take(keys.size(), synchronousCommit))) {
            if (connection.getAutoCommit()) {
                return null; // see PendingQueue.takeKeysInRefresh: asked once prepared
            }
            bindKeys(connection, take, 1, keys, projections, now);
            return held(take, now, lease, token);
        }
    }

    @Override
    String claimStatement(String candidates) {
        return CLAIM_IN_ONE_STATEMENT.formatted(candidates, COMMIT_WITHOUT_WAITING + "\n               AND "
                + BOUNDED_LOCK_WAITS);
    }

    /**
     * In the refresh's transaction the bounded lock waits only: the refresh commits as it would on its own (waiting for
     * the disk), and a refresh statement that waits longer for a lock ends the transaction, so a lock cycle with a
     * business transaction waiting for the claimed row is broken by the refresh, well before the business side's
     * deadlock check (docs/pitfalls.md #96); the key then goes the ordinary way.
     */
    @Override
    String claimStatementInRefresh(String candidates) {
        return CLAIM_IN_ONE_STATEMENT.formatted(candidates, BOUNDED_LOCK_WAITS);
    }

    @Override
    int claimParameters() {
        return 3;
    }

    @Override
    String rowAddress() {
        return ", tableoid::bigint || ' ' || ctid::text";
    }

    private interface Binder {
        void bind(PreparedStatement statement) throws SQLException;
    }

    /**
     * Runs {@code sql}, whose parameters {@code table} and {@code table + 1} are a table's oid and its rows' ctids, once per table among
     * {@code addresses} ("oid ctid"): once on the plain table the changelog creates, once per partition touched on a
     * partitioned one.
     */
    private static void byTable(Connection connection, String sql, int table, List<String> addresses, Binder others)
            throws SQLException {
        if (addresses.isEmpty()) {
            return;
        }
        Map<Long, List<String>> tids = new TreeMap<>();
        for (String address : addresses) {
            int space = address.indexOf(' ');
            tids.computeIfAbsent(Long.parseLong(address.substring(0, space)), oid -> new ArrayList<>())
                    .add(address.substring(space + 1));
        }
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            for (Map.Entry<Long, List<String>> entry : tids.entrySet()) {
                others.bind(statement);
                statement.setLong(table, entry.getKey());
                statement.setArray(table + 1, connection.createArrayOf("text", entry.getValue().toArray()));
                statement.executeUpdate();
            }
        }
    }
}
