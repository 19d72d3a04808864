package dev.projections.store;

import static dev.projections.store.Statements.bindKey;

import dev.projections.MarkKey;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Collections;

/**
 * {@code projection_pending} as the engine uses it (docs/contract.md §3, §4): marks upserted, claimed under a lease,
 * acked, failed, parked, given back, released and renewed. Each method runs on the caller's connection, in the
 * caller's transaction; instants are parameters taken from the engine's clock (never {@code now()} in SQL), so tests
 * control time. Statements that lock several rows take them in key order.
 * <p>
 * The statements here are those PostgreSQL, H2 and MariaDB share, kept to SQL that all of them accept (row-value
 * {@code IN}, {@code FOR UPDATE SKIP LOCKED}); what differs in a statement's text (row limits, timestamps) comes
 * from the {@link Dialect}, and a dialect whose statements differ as a whole (the upsert, PostgreSQL's claim and ack
 * by row address, MariaDB's claim per projection) overrides them in its subclass.
 */
public abstract class PendingQueue {

    /** The priority of a mark made by a business change: claimed before any rebuild mark. */
    public static final int LIVE = 0;

    /** The priority of a mark made by a rebuild. */
    public static final int REBUILD = 1;

    /**
     * The {@code available_at} of a parked mark: past any clock, so the claim, due and oldest-due queries leave it
     * out by the predicate they already have, on the indexes they already use (docs/design.md D26).
     */
    public static final Instant PARKED_UNTIL = Instant.parse("9999-12-31T00:00:00Z");

    final Dialect dialect;
    /** The instance whose claims these are, written beside each claim for the console; {@code null} outside a server. */
    final String holder;

    final CandidateLocks candidateLocks;

    PendingQueue(Dialect dialect, String holder) {
        this.dialect = dialect;
        this.holder = holder;
        this.candidateLocks = new CandidateLocks(dialect);
    }

    /**
     * The upsert rule of docs/contract.md §3, for keys sorted in key order: a new key is inserted due now; an existing
     * key gets a new generation, {@code mark_count + 1}, the lower priority, and becomes due now unless it is backing
     * off. Claim columns and {@code first_marked_at} are never touched.
     */
    public final void upsert(Connection connection, List<MarkKey> sortedKeys, int priority, Instant now)
            throws SQLException {
        upsert(connection, sortedKeys, priority, null, now);
    }

    /**
     * As {@link #upsert(Connection, List, int, Instant)}, for a step of rebuild run {@code rebuildRun} ({@code null}: a
     * live mark): a mark it writes or finds is that run's ({@code rebuild_run}), and a live re-mark keeps the run a row
     * had. A run's remaining, failing and cancelled marks are its own (docs/contract.md §7).
     */
    public final void upsert(Connection connection, List<MarkKey> sortedKeys, int priority, String rebuildRun,
                             Instant now) throws SQLException {
        upsert(connection, sortedKeys, priority, rebuildRun, null, now);
    }

    /**
     * As {@link #upsert(Connection, List, int, String, Instant)}, by a business transaction whose trace context is
     * {@code traceparent} ({@code null}: none, or tracing is off): a row it writes holds it, a row without one keeps
     * the trace context it had (docs/contract.md §9, tracing).
     */
    public abstract void upsert(Connection connection, List<MarkKey> sortedKeys, int priority, String rebuildRun,
                                String traceparent, Instant now) throws SQLException;

    /**
     * {@code sql}, a statement that reads (a subquery) before it locks: on MariaDB without the snapshot check, which
     * would fail it when a row it locks changed after the statement began ({@link SnapshotChecks}).
     */
    String lockingRead(Connection connection, String sql) throws SQLException {
        return dialect.lockingRead(connection, sql);
    }

    /*
     * Why SKIP LOCKED: the claim is a queue pop run by every worker of every instance at once. With a plain
     * FOR UPDATE, workers line up behind the first one's locks and then find the rows taken; with NOWAIT they
     * fail. SKIP LOCKED lets each take the next free rows without waiting for them, so the claim need not lock in the
     * business upserts' key order; where PostgreSQL makes it wait all the same (docs/pitfalls.md #92), the claim's
     * transaction waits briefly and gives up (PostgresPendingQueue). Valid leases are excluded by the WHERE clause, so an
     * upsert that commits meanwhile (it never touches claim columns) cannot make a held mark claimable.
     */
    private static final String CLAIM_CANDIDATES = """
            SELECT projection, tenant_id, entity_id, generation, attempts, priority%s, first_marked_at
              FROM projection_pending
             WHERE projection IN (%s)%s
               AND available_at <= ?
               AND (claimed_until IS NULL OR claimed_until <= ?)
               AND NOT EXISTS (SELECT 1 FROM projection_control c
                                WHERE c.projection = projection_pending.projection AND c.paused)
             ORDER BY %s%s
            """;

    private static final String LOCK_CLAUSE = "   FOR UPDATE SKIP LOCKED";

    static final String SET_CLAIM = """
            UPDATE projection_pending SET claim_token = ?, claimed_until = ?, claimed_by = ?
             WHERE projection = ? AND tenant_id = ? AND entity_id = ?
            """;

    private static final String DELETE_IF_UNCHANGED = """
            DELETE FROM projection_pending
             WHERE projection = ? AND tenant_id = ? AND entity_id = ? AND generation = ? AND claim_token = ?
            """;

    /*
     * first_marked_at becomes the claim time: the change that made this ack miss happened after it; in the claimer's
     * clock (first_marked_by). Completed by a RowLocator's condition.
     */
    static final String REMARK_AND_RELEASE = """
            UPDATE projection_pending
               SET generation = ?, claim_token = NULL, claimed_until = NULL, claimed_by = NULL, attempts = 0, last_error = NULL,
                   first_failed_at = NULL, available_at = ?, first_marked_at = ?, first_marked_by = ?""";

    /**
     * Claims up to {@code limit} due marks of {@code projections} without a valid lease, live before rebuild,
     * oldest first, skipping rows other transactions hold locked.
     */
    public List<ClaimedMark> claimDue(Connection connection, Collection<String> projections, Instant now,
                                      Duration lease, String token, int limit) throws SQLException {
        return claimDue(connection, projections, now, lease, token, limit, LIVE);
    }

    /**
     * The same, of the marks of priority {@code fromPriority} or lower in claim order ({@link #REBUILD}: rebuild marks
     * only — a rebuild's share of the claims while live marks would fill every one, docs/design.md D40).
     */
    public List<ClaimedMark> claimDue(Connection connection, Collection<String> projections, Instant now,
                                      Duration lease, String token, int limit, int fromPriority) throws SQLException {
        if (projections.isEmpty() || limit < 1) {
            return List.of();
        }
        try (PreparedStatement select = prepareClaimDue(connection, projections, now, limit, fromPriority)) {
            return claim(connection, select, now, lease, token);
        }
    }

    /** {@link #claimDue} in the transaction that refreshes what it claims ({@link ClaimsInRefresh}): the same here. */
    List<ClaimedMark> claimDueInRefresh(Connection connection, Collection<String> projections, Instant now,
                                        Duration lease, String token, int limit, int fromPriority) throws SQLException {
        return claimDue(connection, projections, now, lease, token, limit, fromPriority);
    }

    /**
     * The query of due, unleased marks of {@code projections} (not paused), live first, oldest first, at most
     * {@code limit}: one {@code projection IN (…)} query here. Its columns are those of {@link #CLAIM_CANDIDATES}.
     */
    PreparedStatement prepareClaimDue(Connection connection, Collection<String> projections, Instant now, int limit,
                                      int fromPriority) throws SQLException {
        String sql = CLAIM_CANDIDATES.formatted(rowAddress(), placeholders(projections.size()),
                "\n   AND priority >= ?", "priority, available_at", dialect.firstRows(limit)) + lockClause();
        PreparedStatement select = connection.prepareStatement(claimStatement(lockingRead(connection, sql)));
        int i = 1 + claimParameters();
        for (String projection : projections) {
            select.setString(i++, projection);
        }
        select.setInt(i++, fromPriority);
        select.setObject(i++, dialect.timestamp(now));
        select.setObject(i, dialect.timestamp(now));
        return select;
    }

    /** Claims those of {@code keys} that are due, unleased and of {@code projections}. */
    public List<ClaimedMark> claimKeys(Connection connection, Collection<MarkKey> keys, Collection<String> projections,
                                       Instant now, Duration lease, String token) throws SQLException {
        return claimKeys(connection, keys, projections, now, lease, token, false);
    }

    List<ClaimedMark> claimKeys(Connection connection, Collection<MarkKey> keys,
                                        Collection<String> projections, Instant now, Duration lease, String token,
                                        boolean inRefreshTransaction) throws SQLException {
        if (keys.isEmpty() || projections.isEmpty()) {
            return List.of();
        }
        try (PreparedStatement select = prepareClaimKeys(connection, keys, projections, now, inRefreshTransaction)) {
            return claim(connection, select, now, lease, token);
        }
    }

    /**
     * The claim of those of {@code keys} that are due, unleased and of {@code projections} ({@link #claimStatement},
     * or {@link #claimStatementInRefresh} {@code inRefreshTransaction}), its parameters bound but the claim's own: here
     * one {@code (?, ?, ?)} per key.
     */
    PreparedStatement prepareClaimKeys(Connection connection, Collection<MarkKey> keys, Collection<String> projections,
                                       Instant now, boolean inRefreshTransaction) throws SQLException {
        String candidates = lockingRead(connection, claimKeysSql(keys.size(), projections.size()));
        PreparedStatement select = connection.prepareStatement(inRefreshTransaction
                ? claimStatementInRefresh(candidates) : claimStatement(candidates));
        int i = 1 + claimParameters();
        for (String projection : projections) {
            select.setString(i++, projection);
        }
        for (MarkKey key : keys) {
            select.setString(i++, key.projection());
            select.setString(i++, key.tenantId());
            select.setString(i++, key.entityId());
        }
        select.setObject(i++, dialect.timestamp(now));
        select.setObject(i, dialect.timestamp(now));
        return select;
    }

    /** The candidates of a claim of {@code keys} keys of {@code projections} projections (package-private for the plan test). */
    String claimKeysSql(int keys, int projections) {
        String keyFilter = "\n   AND (projection, tenant_id, entity_id) IN (" + String.join(", ",
                Collections.nCopies(keys, "(?, ?, ?)")) + ")";
        return CLAIM_CANDIDATES.formatted(rowAddress(), placeholders(projections), keyFilter,
                "projection, tenant_id, entity_id", dialect.firstRows(keys)) + lockClause();
    }

    /** Claims the rows {@code select} returns (and locked), as {@link #claimStatement} describes. */
    final List<ClaimedMark> claim(Connection connection, PreparedStatement select, Instant now, Duration lease,
                                  String token) throws SQLException {
        Instant leaseUntil = now.plus(lease);
        boolean oneStatement = claimParameters() > 0;
        if (oneStatement) {
            select.setString(1, token);
            select.setObject(2, dialect.timestamp(leaseUntil));
            select.setString(3, holder);
        }
        List<ClaimedMark> claimed = held(select, now, lease, token);
        if (oneStatement) {
            return claimed; // claimed by the statement itself, each with its claimed row's address
        }
        if (!dialect.locksOnlyReturnedRows()) {
            claimed = candidateLocks.lock(connection, claimed, now);
        }
        if (claimed.isEmpty()) {
            return claimed;
        }
        try (PreparedStatement update = connection.prepareStatement(SET_CLAIM)) {
            for (ClaimedMark mark : sortedByKey(claimed)) {
                update.setString(1, token);
                update.setObject(2, dialect.timestamp(leaseUntil));
                update.setString(3, holder);
                bindKey(update, 4, mark.key());
                update.addBatch();
            }
            update.executeBatch();
        }
        return claimed;
    }

    /** The marks {@code select} returns ({@link ClaimedMark#readAll}), with an address where claimed in one statement. */
    final List<ClaimedMark> held(PreparedStatement select, Instant now, Duration lease, String token)
            throws SQLException {
        return ClaimedMark.readAll(select, dialect, token, now, lease, claimParameters() > 0);
    }

    /**
     * The statement that claims what {@code candidates} selects (and locks): here the select itself, whose rows are
     * then claimed by a second statement. A dialect that claims in the same statement returns one that sets the claim
     * columns from {@link #claimParameters()} parameters of its own (token, lease end, holder) placed before the
     * candidates' and returns the claimed rows in the candidates' columns, the 7th being the claimed row's address.
     */
    String claimStatement(String candidates) {
        return candidates;
    }

    /** {@link #claimStatement} in the transaction that refreshes what it claims ({@link ClaimsInRefresh}): the same. */
    String claimStatementInRefresh(String candidates) {
        return claimStatement(candidates);
    }

    /** The parameters {@link #claimStatement} puts before the candidates' own: 0, or 3 for a claim in one statement. */
    int claimParameters() {
        return 0;
    }

    /**
     * The select-list addition that returns a candidate row's physical address as its 7th column, for a dialect that
     * claims in one statement ({@link #claimStatement}); empty where rows are claimed by key.
     */
    String rowAddress() {
        return "";
    }

    /* where a locking read under a row limit locks more than it returns, the candidates are read without a lock and
     * then locked one by one (CandidateLocks) */
    private String lockClause() {
        return dialect.locksOnlyReturnedRows() ? LOCK_CLAUSE : "";
    }

    /**
     * The ack, last statement of the refresh transaction: deletes the mark if its generation and token are
     * the claimed ones; otherwise re-marks and releases it if the token is still mine, or upserts it at LIVE
     * priority.
     */
    public AckOutcome ack(Connection connection, ClaimedMark mark, Instant now) throws SQLException {
        try (PreparedStatement delete = connection.prepareStatement(DELETE_IF_UNCHANGED)) {
            int i = bindKey(delete, 1, mark.key());
            delete.setString(i++, mark.generation());
            delete.setString(i, mark.token());
            if (delete.executeUpdate() == 1) {
                return AckOutcome.SUCCESS;
            }
        }
        return missedAck(connection, mark, now, RowLocator.BY_KEY);
    }

    /**
     * The acks of one refresh transaction's marks, given in key order, with an outcome each in that order: the same
     * rules as {@link #ack}, locking the marks' rows in key order. A dialect may do it in fewer statements than one
     * per mark.
     */
    public List<AckOutcome> ackAll(Connection connection, List<ClaimedMark> sortedMarks, Instant now)
            throws SQLException {
        List<AckOutcome> outcomes = new ArrayList<>(sortedMarks.size());
        for (ClaimedMark mark : sortedMarks) {
            outcomes.add(ack(connection, mark, now));
        }
        return outcomes;
    }

    /**
     * Lone keys (at least one) taken in the transaction that refreshes them: deleted there, its commit their ack, a
     * rollback puts them back; {@code null} where the dialect does not take them (here), or on a connection that says
     * it commits each statement — the container rolled the transaction back at its timeout, where a take would end the
     * marks for good, or a connection enlisted in none (docs/pitfalls.md #127); asked once the take's
     * statement is prepared, when a lazily enlisting pool enlists — and they are claimed as {@link #claimKeys} does.
     * A take that is not {@code null} told the transaction {@code synchronousCommit} where that is not {@code null}
     * (docs/design.md D63: PostgreSQL's only, so others are never given one).
     */
    List<ClaimedMark> takeKeysInRefresh(Connection connection, Collection<MarkKey> keys, Collection<String> projections,
                                        Instant now, Duration lease, String token, String synchronousCommit)
            throws SQLException {
        return null;
    }

    /** The acks of marks claimed in this very transaction ({@link ClaimsInRefresh}), in key order: as {@link #ackAll}. */
    List<AckOutcome> ackHeld(Connection connection, List<ClaimedMark> sortedMarks, Instant now) throws SQLException {
        return ackAll(connection, sortedMarks, now);
    }

    /**
     * The ack of {@code mark} (its row found by {@code rows}) found another generation or another claim: marks it
     * again and releases it while the claim is still mine, or (the claim gone) upserts it LIVE.
     */
    AckOutcome missedAck(Connection connection, ClaimedMark mark, Instant now, RowLocator rows) throws SQLException {
        try (PreparedStatement remark = connection.prepareStatement(REMARK_AND_RELEASE + rows.where())) {
            remark.setString(1, Generations.next());
            remark.setObject(2, dialect.timestamp(now));
            remark.setObject(3, dialect.timestamp(mark.claimedAt()));
            remark.setString(4, holder);
            int i = rows.bind(remark, 5, mark.key());
            remark.setString(i, mark.token());
            if (remark.executeUpdate() == 1) {
                return AckOutcome.REPEATED;
            }
        }
        reMarkLive(connection, mark.key(), now);
        return AckOutcome.REPEATED;
    }

    /**
     * The key's claim is gone (its lease lapsed and another worker took it, or acked it): whatever this worker's
     * refresh wrote may be older than what the newer refresh wrote, and a read model outside this database (an
     * index, a cache) is not rolled back with the transaction. Only a new mark repairs that. It is LIVE: a live
     * change repaired after a stale write must not wait behind a rebuild queue.
     */
    void reMarkLive(Connection connection, MarkKey key, Instant now) throws SQLException {
        upsert(connection, List.of(key), LIVE, now);
    }

    /**
     * How the statements that end claims on {@code keys} (given in key order) find their rows in this transaction:
     * by key, unless the dialect's planner may read another index for that; then the rows are locked here, in key
     * order, and found by address (a key whose row was gone is marked again, fresh).
     */
    RowLocator locate(Connection connection, List<MarkKey> sortedKeys, Instant now) throws SQLException {
        return RowLocator.BY_KEY;
    }

    static List<ClaimedMark> sortedByKey(List<ClaimedMark> marks) {
        List<ClaimedMark> sorted = new ArrayList<>(marks);
        sorted.sort(Comparator.comparing(ClaimedMark::key));
        return sorted;
    }

    private static String placeholders(int n) {
        return String.join(", ", Collections.nCopies(n, "?"));
    }
}
