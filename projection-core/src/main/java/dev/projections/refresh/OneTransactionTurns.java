package dev.projections.refresh;

import dev.projections.MarkKey;
import dev.projections.store.AckOutcome;
import dev.projections.store.ClaimedMark;
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
}
