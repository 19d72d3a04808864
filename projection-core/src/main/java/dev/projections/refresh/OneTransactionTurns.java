package dev.projections.refresh;

import dev.projections.MarkKey;
import dev.projections.store.AckOutcome;
import dev.projections.store.ClaimedMark;
import dev.projections.store.PendingQueue;
import java.util.List;
import java.util.Set;

/** A drainer's turns that refresh a lone handed key in one transaction with its claim and ack (docs/design.md D53). */
final class OneTransactionTurns {

    private final Claimer claimer;
    private final BatchRefresher refresher;
    private final InFlight inFlight;
    private final RebuildPacing pacing;
    private final Handoff handoff;

    OneTransactionTurns(Claimer claimer, BatchRefresher refresher, InFlight inFlight, RebuildPacing pacing,
                        Handoff handoff) {
        this.claimer = claimer;
        this.refresher = refresher;
        this.inFlight = inFlight;
        this.pacing = pacing;
        this.handoff = handoff;
    }

    /**
     * A turn of one handed key and no owed look, claimed, refreshed and acked in one transaction; {@code null} when
     * that rolled back and the key goes the ordinary way. Such a turn looked at its key only, as a claim by key does;
     * a look {@code lookWanted} is asked of the next turn.
     */
    Claim take(String projection, MarkKey key, int batchSize, DueLook look, boolean lookWanted,
               Set<String> lookBeforeEnding) {
        OneTransactionRefresh.Result result;
        inFlight.batchBegins(1);
        inFlight.refreshBegins();
        try {
            result = refresher.oneTransaction().refresh(key);
        } finally {
            inFlight.refreshEnds();
            inFlight.batchEnds(1);
        }
        if (result.ended() == OneTransactionRefresh.Ended.ROLLED_BACK) {
            // "not now" (a lock wait the one transaction's bound cut short, a deadlock, a lost connection) or
            // back-pressure: refreshed again the ordinary way; the projection's own error: recorded as it is
            Throwable failure = result.failure();
            return failure == null || refresher.isBackPressure(projection, failure) || Transient.is(failure) ? null
                    : recordFailureOfOneTransaction(projection, key, result, batchSize, look, lookBeforeEnding);
        }
        pacing.liveClaimed(projection, result.mark() == null ? List.of() : List.of(result.mark()), batchSize);
        if (result.ended() == OneTransactionRefresh.Ended.NOT_CLAIMED) {
            lookBeforeEnding.add(projection); // skipped (held a moment by another transaction): a look finds it
            return Claim.EMPTY;
        }
        if (result.outcome() != AckOutcome.SUCCESS) {
            look.lookAgain(); // marked anew meanwhile: due again now
            lookBeforeEnding.add(projection);
        }
        // acked as claimed: the turn's one key is done, and unlike after an ordinary claim by key (which may have
        // skipped a handed key) no look is owed before the drainer ends; other due marks (retries, other instances'
        // orphans) are found by the looks DueLook wants and by the sweep (docs/design.md D53)
        if (lookWanted) {
            // the look this claim would have made, in the next turn: after the key's refresh, not before it
            handoff.askForDueLook(Set.of(projection));
        }
        return Claim.SHORT;
    }

    /**
     * The projection's refresh threw in one transaction, which rolled back whole: the mark, as it was, is claimed the
     * ordinary way and the failure recorded on it once, as the ordinary path records it — never refreshed twice for
     * one attempt, so a non-retryable failure parks it at once. Claimed by another worker meanwhile, it is theirs.
     */
    private Claim recordFailureOfOneTransaction(String projection, MarkKey key, OneTransactionRefresh.Result result,
                                                int batchSize, DueLook look, Set<String> lookBeforeEnding) {
        List<ClaimedMark> again = claimer.claimTurn(projection, List.of(key), batchSize, null);
        pacing.liveClaimed(projection, again, batchSize);
        lookBeforeEnding.add(projection);
        if (again.isEmpty()) {
            return Claim.EMPTY;
        }
        inFlight.batchBegins(1);
        try {
            refresher.failedInOneTransaction(again.get(0), result.failure(), result.took());
        } finally {
            inFlight.batchEnds(1);
        }
        look.lookAgain(); // backing off: due again later
        return Claim.SHORT;
    }

    /**
     * A turn's batch claimed, refreshed and acked in one transaction (docs/design.md D59) when the projection goes that
     * way: the handed {@code keys}, then due marks when {@code lookAtDue} (only rebuild marks for a
     * {@code rebuildShare}); the batch as refreshed (or, for one mark whose refresh threw, as its failure was recorded),
     * or {@code null} when the turn goes the ordinary way (nothing claimed then: a rollback leaves the marks as they
     * were).
     */
    ClaimedBatch batch(String projection, List<MarkKey> keys, int batchSize, DueLook look, boolean lookAtDue,
                       boolean rebuildShare, Set<String> lookBeforeEnding) {
        if (keys.isEmpty() && !lookAtDue && !rebuildShare
                || !refresher.oneTransaction().appliesToBatch(projection, batchSize)) {
            return null;
        }
        long begun = look.begin();
        OneTransactionRefresh.Batch done;
        inFlight.refreshBegins(); // no claim is held outside the transaction: none counted (InFlight.batchBegins)
        try {
            done = refresher.oneTransaction().refreshBatch(projection, keys, batchSize, lookAtDue || rebuildShare,
                    rebuildShare ? PendingQueue.REBUILD : PendingQueue.LIVE);
        } finally {
            inFlight.refreshEnds();
        }
        if (done == null) {
            return null;
        }
        if (done.failure() != null) {
            // one mark, whose refresh threw: recorded once, as a lone key's (or the ordinary way when not its own doing)
            ClaimedMark mark = done.claimed().get(0);
            if (refresher.isBackPressure(projection, done.failure()) || Transient.is(done.failure())) {
                return null;
            }
            Claim recorded = recordFailureOfOneTransaction(projection, mark.key(),
                    new OneTransactionRefresh.Result(OneTransactionRefresh.Ended.ROLLED_BACK, mark, null,
                            done.failure(), done.took()), batchSize, look, lookBeforeEnding);
            return new ClaimedBatch(recorded == Claim.EMPTY ? List.of() : List.of(mark));
        }
        if (lookAtDue && !rebuildShare && done.asked() > 0) {
            look.looked(begun, done.due(), done.asked());
        }
        ClaimedBatch batch = new ClaimedBatch(done.claimed());
        batch.refreshedAsClaimed((int) done.outcomes().stream().filter(outcome -> outcome == AckOutcome.SUCCESS).count());
        return batch;
    }
}
