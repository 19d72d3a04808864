package dev.projections.store;

import dev.projections.MarkKey;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.function.Function;

/**
 * Claims made in the transaction that goes on to refresh and ack what they claim (docs/design.md D53, D59, D61): the
 * claim statements are the ordinary ones ({@link PendingQueue#claimStatementInRefresh} sets what they set for the rest
 * of the transaction), so one worker per key, generations and the ack's rules are the ordinary ones; but on PostgreSQL
 * and MariaDB a lone key's claim takes its row, which then needs no ack, and on PostgreSQL a batch's due claim only
 * locks its rows (a lease nobody else could see was a row version written for nothing). The row locks, held until the
 * transaction ends, keep every other worker off the keys; the ack deletes the rows (or the claim already took them:
 * D61), a rollback takes back whatever the claim wrote with everything else.
 */
public final class ClaimsInRefresh {

    private final PendingQueue queue;
    private final Function<List<String>, String> synchronousCommits;

    /** Claims whose transactions commit as the database says. */
    public ClaimsInRefresh(PendingQueue queue) {
        this(queue, projections -> null);
    }

    /**
     * Claims whose transactions are told to commit with {@code synchronousCommits} of the projections they claimed
     * for, where that is not {@code null} (PostgreSQL's {@code synchronous_commit}, docs/design.md D63).
     */
    public ClaimsInRefresh(PendingQueue queue, Function<List<String>, String> synchronousCommits) {
        this.queue = queue;
        this.synchronousCommits = synchronousCommits;
    }

    /** What {@link ClaimsInRefresh#claim} claimed, in key order, and whether it took the rows (so no ack is to run). */
    public record Claimed(List<ClaimedMark> marks, boolean taken) {
    }

    /**
     * Those of {@code keys} (lone keys of projections of their own) that are due and unleased, in key order: the order
     * they are refreshed and acked in ({@link #ackClaimed}). On PostgreSQL and MariaDB the claim takes them: it deletes
     * their rows, which its lock holds to the commit (docs/design.md D61) — not on a connection that says it
     * commits each statement (the container rolled the transaction back at its timeout): there they are claimed and
     * acked ({@link PendingQueue#takeKeysInRefresh}). The transaction is told how to commit, where it is to be told: by
     * the take's own statement, else by one of its own.
     */
    public Claimed claim(Connection connection, List<MarkKey> keys, Instant now, Duration lease, String token)
            throws SQLException {
        List<String> projections = keys.stream().map(MarkKey::projection).distinct().toList();
        String synchronousCommit = synchronousCommits.apply(projections);
        List<ClaimedMark> taken = keys.isEmpty() ? null
                : queue.takeKeysInRefresh(connection, keys, projections, now, lease, token, synchronousCommit);
        List<ClaimedMark> claimed = new ArrayList<>(taken != null ? taken
                : queue.claimKeys(connection, keys, projections, now, lease, token, true));
        if (taken == null && synchronousCommit != null) { // claimed, not taken: the take's statement tells itself
            queue.dialect.commitTransaction(connection, synchronousCommit);
        }
        claimed.sort(Comparator.comparing(ClaimedMark::key));
        return new Claimed(claimed, taken != null);
    }

    /**
     * The acks of what {@link #claim} claimed, in key order: none to run where the claim took the rows (each then ends
     * with the commit, a success, as no other transaction could change a row this one holds), else {@link #ack}.
     */
    public List<AckOutcome> ackClaimed(Connection connection, Claimed claimed, Instant now) throws SQLException {
        if (claimed.taken()) {
            return Collections.nCopies(claimed.marks().size(), AckOutcome.SUCCESS);
        }
        return ack(connection, claimed.marks(), now);
    }

    /**
     * A drainer's turn of {@code projection} in one transaction, under one token: those of {@code keys} that are due
     * and unleased, then, when {@code look}, due marks of priority {@code fromPriority} or lower in claim order
     * ({@link PendingQueue#REBUILD}: a rebuild's share), up to {@code limit} marks in all: every claimed row stays
     * locked until the transaction ends, so the batch holds no more than the admission counted.
     */
    public List<ClaimedMark> claimTurn(Connection connection, String projection, List<MarkKey> keys, int limit,
                                       boolean look, int fromPriority, Instant now, Duration lease, String token)
            throws SQLException {
        List<ClaimedMark> claimed = new ArrayList<>(keys.isEmpty() ? List.of()
                : queue.claimKeys(connection, keys, List.of(projection), now, lease, token, true));
        int asked = limit - claimed.size(); // at most limit rows held however many were handed
        if (look && asked > 0) {
            claimed.addAll(queue.claimDueInRefresh(connection, List.of(projection), now, lease, token, asked,
                    fromPriority));
        }
        String synchronousCommit = synchronousCommits.apply(List.of(projection));
        if (!claimed.isEmpty() && synchronousCommit != null) {
            queue.dialect.commitTransaction(connection, synchronousCommit);
        }
        return claimed;
    }

    /** The acks of marks claimed in this transaction, given in key order: one outcome each, in that order. */
    public List<AckOutcome> ack(Connection connection, List<ClaimedMark> sortedMarks, Instant now)
            throws SQLException {
        return queue.ackHeld(connection, sortedMarks, now);
    }
}
