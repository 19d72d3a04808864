package dev.projections.store;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * PostgreSQL's claim statements, as {@link PostgresPendingQueue} runs them: the due claim per projection, the claim of
 * handed keys, and the one statement that locks the candidates either selects and sets their claim by row address,
 * with the transaction settings it makes before it locks anything; in a refresh's transaction, a batch's due claim
 * that only locks and a lone key's take that deletes.
 */
final class PostgresClaimStatements {

    private PostgresClaimStatements() {
    }

    /*
     * Claims with several projections: "projection IN (…) ORDER BY priority, available_at" cannot read the claim
     * index (projection, priority, available_at) in order across projections, so PostgreSQL sorted every due,
     * unleased row of them all for each claim (quadratic over a million-mark rebuild). Here each projection's
     * marks are read in index order under a LIMIT of their own, locked as they are read, and only those few
     * candidates (at most projections × limit) are sorted and cut. A candidate locked but cut stays locked until
     * the claim commits, milliseconds later; other claimers skip it meanwhile. Paused projections are left out
     * before their marks are read.
     */
    private static final String DUE_CANDIDATES = """
            SELECT c.projection, c.tenant_id, c.entity_id, c.generation, c.attempts, c.priority,
                   c.tableoid::bigint || ' ' || c.ctid::text, c.first_marked_at
              FROM (SELECT u.projection FROM unnest(?::text[]) AS u(projection)
                     WHERE %sNOT EXISTS (SELECT 1 FROM projection_control ctl
                                        WHERE ctl.projection = u.projection AND ctl.paused)) AS d
             CROSS JOIN LATERAL (
                   SELECT p.projection, p.tenant_id, p.entity_id, p.generation, p.attempts, p.priority, p.available_at,
                          p.tableoid, p.ctid, p.first_marked_at
                     FROM projection_pending p
                    WHERE p.projection = d.projection AND p.priority >= ? AND p.available_at <= ?
                      AND (p.claimed_until IS NULL OR p.claimed_until <= ?)
                    ORDER BY p.priority, p.available_at
                    LIMIT ?
                      FOR UPDATE SKIP LOCKED) AS c
             ORDER BY c.priority, c.available_at
             LIMIT ?
            """;

    /** The due candidates, as the ordinary claim locks them (its statement bounds the lock waits itself). */
    static final String CLAIM_DUE = DUE_CANDIDATES.formatted("");

    /*
     * A claim of handed keys: the keys as three arrays, so that one statement text serves every batch size. With one
     * (?, ?, ?) per key, each batch size was a statement of its own, which the driver prepares on the server only after
     * its fifth use on a connection and PostgreSQL plans anew until then: under a varying load the server took
     * minutes to reach its steady rate (issue 47, item 3). Each key is found by the primary key, locked in key order.
     */
    private static final String KEYS_CANDIDATES = """
            SELECT p.projection, p.tenant_id, p.entity_id, p.generation, p.attempts, p.priority,
                   p.tableoid::bigint || ' ' || p.ctid::text, p.first_marked_at
              FROM projection_pending p
             WHERE %s
               AND p.projection = ANY(?::text[])
               AND p.available_at <= ? AND (p.claimed_until IS NULL OR p.claimed_until <= ?)
               AND NOT EXISTS (SELECT 1 FROM projection_control c WHERE c.projection = p.projection AND c.paused)
             ORDER BY p.projection, p.tenant_id, p.entity_id
               FOR UPDATE OF p SKIP LOCKED
            """;

    static final String CLAIM_KEYS = KEYS_CANDIDATES.formatted(
            "(p.projection, p.tenant_id, p.entity_id) IN (SELECT * FROM unnest(?::text[], ?::text[], ?::text[]))");

    /*
     * The claim of one key (a lone commit's, the commonest), its key as three values: the same parameters in the same
     * places. With the arrays PostgreSQL planned every execution anew, for as long as the connection lived: a custom
     * plan knows the array holds one key and so looks ten times cheaper than the generic plan, which assumes ten, and
     * the plan cache never switches (docs/pitfalls.md #128). With values the two plans cost the same and the generic
     * one is kept from the sixth execution on: planning went from about 0.35 ms to 0.01.
     */
    static final String CLAIM_ONE_KEY = KEYS_CANDIDATES.formatted(
            "p.projection = ? AND p.tenant_id = ? AND p.entity_id = ?");

    /** The candidates of a claim of {@code count} handed keys: one statement for one key, one for any other count. */
    static String keysCandidates(int count) {
        return count == 1 ? CLAIM_ONE_KEY : CLAIM_KEYS;
    }

    /*
     * Each candidate's row by the address it was locked at (the projection in the join lets a queue partitioned by
     * projection read only the candidate's partition), under a one-time condition; returned as a claim returns it.
     */
    private static final String CANDIDATE_BY_ADDRESS = """
             WHERE q.projection = candidate.projection
               AND q.tableoid = split_part(candidate.address, ' ', 1)::oid
               AND q.ctid = split_part(candidate.address, ' ', 2)::tid
               AND %s
            RETURNING q.projection, q.tenant_id, q.entity_id, q.generation, q.attempts, q.priority,
                      q.tableoid::bigint || ' ' || q.ctid::text, q.first_marked_at
            """;

    /*
     * A claim is one statement: the candidates, locked (FOR UPDATE SKIP LOCKED, in a CTE, so evaluated once), get
     * their claim by address in the same statement, which returns each claimed row with its new address for the ack;
     * and it lets its transaction commit without waiting for the disk (set_config is SET LOCAL; docs/design.md D25;
     * in the WHERE clause it is a one-time filter, run before any candidate is read, so also when the statement
     * locked rows and claimed none), so a claim costs one round trip and a commit that does not wait. The projection
     * in the join lets a queue partitioned by projection read only the candidate's partition (pruned at run time). A
     * candidate updated by a commit between the statement's snapshot and its lock is locked in its new version, which the update by address does not see: it is
     * not claimed and stays due (docs/pitfalls.md #80); a due look in the same transaction claims it (its own lock
     * does not make it skip the row), else the look a drainer makes before it ends. Nothing is lost; the key is late
     * by up to a due look.
     *
     * SKIP LOCKED does not make a claim wait-free: when a candidate's updater commits between PostgreSQL's look at the
     * row and its try for the lock, the lock follows the row's newer versions and waits for whoever holds them, however
     * the statement was asked to skip (docs/pitfalls.md #92). The claim locks in due order while holding the candidates
     * it locked before, and business transactions lock in key order, so that wait can close a cycle, and PostgreSQL's
     * deadlock check may then roll back the business transaction. The claim's transaction therefore waits for a lock at
     * most LOCK_WAIT_BOUND (BOUNDED_LOCK_WAITS beside synchronous_commit, set before any candidate is locked) and is
     * tried again (Claimer). A business transaction caught in such a cycle waits from the moment the claim locked the
     * row it wants; a claim transaction is one or two statements, so the claim reaches its wait and gives up well
     * within the business side's deadlock_timeout (1 s by default), and its deadlock check never has to pick a victim.
     */
    static final String CLAIM_IN_ONE_STATEMENT = """
            WITH claim AS MATERIALIZED (
                   SELECT ?::text AS token, CAST(? AS TIMESTAMP WITH TIME ZONE) AS lease_until, ?::text AS holder),
                 candidate (projection, tenant_id, entity_id, generation, attempts, priority, address, first_marked_at) AS (
            %s)
            UPDATE projection_pending q
               SET claim_token = claim.token, claimed_until = claim.lease_until, claimed_by = claim.holder
              FROM candidate, claim
            """ + CANDIDATE_BY_ADDRESS;

    /**
     * How long a statement that locks with SKIP LOCKED while it holds other rows (a claim, a cancelled run's purge)
     * waits for a lock at most: well under deadlock_timeout (see CLAIM_IN_ONE_STATEMENT).
     */
    static final String LOCK_WAIT_BOUND = "50ms";

    /** A one-time condition that sets LOCK_WAIT_BOUND for the rest of the transaction before its statement reads a row. */
    static final String BOUNDED_LOCK_WAITS = "(SELECT set_config('lock_timeout', '" + LOCK_WAIT_BOUND + "', true)) IS NOT NULL";

    /** A one-time condition that lets the claim's transaction commit without waiting for the disk (docs/design.md D25). */
    static final String COMMIT_WITHOUT_WAITING = "(SELECT set_config('synchronous_commit', 'off', true)) IS NOT NULL";

    /*
     * The due claim of a batch in the refresh's transaction (docs/design.md D59): the candidates locked, nothing
     * written. The transaction holds the rows until it ends, so no other worker can take them, and nobody else could
     * see a lease it wrote; the ordinary claim's UPDATE wrote a new version of every row (and its index entries) that
     * the ack deleted moments later, the costliest statement of a rebuild (pg_stat_statements: 3.5 ms per 100 marks,
     * against 0.3 ms for the lock alone). The lock waits are bounded (a one-time filter on the projections, evaluated
     * before any pending row is read), as the claim's are.
     */
    static final String LOCK_DUE = DUE_CANDIDATES.formatted(BOUNDED_LOCK_WAITS + "\n                       AND ");

    /*
     * Lone keys claimed in the transaction that refreshes them (docs/design.md D61): taken, their rows deleted by the
     * claim itself. The row lock holds each key until the commit, as the claim's UPDATE did; the commit then ends the
     * mark with the read model's write and a rollback puts the row back as it was, so the ack is no statement of its
     * own — one round trip less per transaction (per table it touched). A business commit of the key meanwhile waits for the row, then
     * inserts its mark anew; the others' claims skip the row, and see it, unclaimed, until the commit.
     */
    private static final String TAKE = """
            WITH candidate (projection, tenant_id, entity_id, generation, attempts, priority, address, first_marked_at) AS (
            %s)
            DELETE FROM projection_pending q
             USING candidate
            """ + CANDIDATE_BY_ADDRESS;

    static final String TAKE_KEYS = TAKE.formatted(CLAIM_KEYS, BOUNDED_LOCK_WAITS);

    /** The take of one key (see CLAIM_ONE_KEY). */
    static final String TAKE_ONE_KEY = TAKE.formatted(CLAIM_ONE_KEY, BOUNDED_LOCK_WAITS);

    /** The take of {@code count} lone keys: one statement for one key, one for any other count (as keysCandidates). */
    static String take(int count) {
        return count == 1 ? TAKE_ONE_KEY : TAKE_KEYS;
    }

    /*
     * The same, telling its transaction how to commit (docs/design.md D63) in the same one-time filter, so that a lone
     * key's refresh that commits without waiting for the disk costs no statement more: synchronous_commit is read at
     * the commit. One text per count kind and value (PostgreSQL's five), made once.
     */
    private static final Map<String, String> TAKES_TOLD = new ConcurrentHashMap<>();

    /** As {@link #take(int)}, the transaction told {@code synchronousCommit}, or not told when {@code null}. */
    static String take(int count, String synchronousCommit) {
        if (synchronousCommit == null) {
            return take(count);
        }
        // the value is checked once, when its text is made: a told take is on every lone commit's path
        return TAKES_TOLD.computeIfAbsent((count == 1 ? "1 " : "n ") + synchronousCommit, told -> {
            if (!synchronousCommit.matches("[a-z_]{1,20}")) {
                throw new IllegalArgumentException("synchronous_commit must be one of PostgreSQL's values, was \""
                        + synchronousCommit + "\"");
            }
            return TAKE.formatted(count == 1 ? CLAIM_ONE_KEY : CLAIM_KEYS, BOUNDED_LOCK_WAITS
                    + "\n               AND (SELECT set_config('synchronous_commit', '" + synchronousCommit
                    + "', true)) IS NOT NULL");
        });
    }
}
