package dev.projections.store;

/**
 * PostgreSQL's ack statements, as {@link PostgresPendingQueue} runs them: the batch's lock in key order, the deletes
 * by address, a lone mark's ack, and the ack of rows a transaction holds since its claim.
 */
final class PostgresAckStatements {

    private PostgresAckStatements() {
    }

    /*
     * Acks in two statements whatever the batch's size, both immune to the planner's choice of index. The first
     * locks every row of the batch in key order — ON CONFLICT DO UPDATE takes the rows in the order they are
     * inserted, and its no-op update returns each row's generation, claim token and physical address (ctid) —
     * and inserts, as a fresh LIVE mark, a key whose row is gone (another worker took it over after our lease
     * lapsed and acked it: our refresh may have overwritten theirs). The second deletes the unchanged rows by
     * address (a TID scan), rows we hold, so their address cannot move. An address is the row's table and its ctid:
     * a ctid is unique only within one table, and on a queue a DBA partitioned (docs/install.md) the same ctid names a
     * row in every partition (docs/pitfalls.md #74), so a statement by address runs per table with both. Deleting by key instead let PostgreSQL,
     * on the statistics of a queue that was empty when last analyzed, find each key through the tenant's due
     * index: a scan of the tenant's whole range per key (docs/pitfalls.md #29). The rare missed acks are
     * handled one by one, on rows already held.
     */
    static final String LOCK_IN_KEY_ORDER = """
            INSERT INTO projection_pending AS p
                   (projection, tenant_id, entity_id, generation, mark_count, priority, attempts, available_at, first_marked_at,
                    first_marked_by)
            SELECT k.projection, k.tenant_id, k.entity_id, k.generation, 1, 0, 0, ?, ?, ?
              FROM unnest(?::text[], ?::text[], ?::text[], ?::text[]) WITH ORDINALITY
                   AS k(projection, tenant_id, entity_id, generation, ord)
             ORDER BY k.ord
            ON CONFLICT (projection, tenant_id, entity_id) DO UPDATE SET generation = p.generation
            RETURNING p.projection, p.tenant_id, p.entity_id, p.generation, p.claim_token,
                      p.tableoid::bigint || ' ' || p.ctid::text
            """;

    static final String DELETE_BY_ADDRESS =
            "DELETE FROM projection_pending WHERE tableoid = ?::oid AND ctid = ANY(?::text[]::tid[])";

    /*
     * A lone mark's ack when its claim returned the row's address: one statement where nobody changed the row since
     * the claim (a business upsert or a renewal moves it, and changes its generation or lease; the generation and token
     * are checked all the same). Only for one mark: a batch deleted by address would lock in address order, not in
     * key order (see LOCK_IN_KEY_ORDER). Anything else takes the two statements below.
     */
    static final String DELETE_CLAIMED_ROW = """
            DELETE FROM projection_pending
             WHERE tableoid = ?::oid AND ctid = ?::tid AND generation = ? AND claim_token = ?
            """;

    /* The acks of rows this transaction claimed or locked and holds (ClaimsInRefresh): by address, one statement per
     * table, with no lock in key order: no new lock is taken, so no cycle can close here (docs/design.md D59). Nobody
     * else can have changed a held row, and a locked one carries no claim of ours (LOCK_DUE), so no token is checked;
     * instead the statement deletes only inside a transaction that has written or locked something (a one-time filter,
     * before any row is read): a claim's transaction always has. An ack that comes late, after the container rolled
     * the batch back at its timeout, on a connection that commits each statement, must not delete marks whose refresh
     * was thrown away; there the token of a rolled-back claim used to be what stopped it. */
    static final String DELETE_HELD_ROWS = """
            DELETE FROM projection_pending
             WHERE tableoid = ?::oid AND ctid = ANY(?::text[]::tid[])
               AND (SELECT txid_current_if_assigned()) IS NOT NULL
            RETURNING tableoid::bigint || ' ' || ctid::text
            """;
}
