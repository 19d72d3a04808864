package dev.projections.refresh;

import dev.projections.MarkKey;
import dev.projections.store.AckOutcome;
import dev.projections.store.ClaimedMark;
import dev.projections.store.PendingQueue;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.ToIntFunction;

/**
 * A drainer's turns that refresh a lone handed key, or two of one commit, in one transaction with their claim and ack
 * (docs/design.md D53, D60), and a batch so (D59).
 */
final class OneTransactionTurns {

    /**
     * What lone keys' turns in one transaction claimed ({@link Claim#SHORT} or {@link Claim#EMPTY}), the keys left to go
     * their own way, and whether the transaction rolled back whole with nothing recorded (they go the ordinary way).
     */
    record Lone(Claim claim, List<MarkKey> ownWay, boolean rolledBack) {
    }

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
     * Turns of one handed key and no owed look each, of one tenant and each of another projection (one, or two a
     * commit handed over together: docs/design.md D60), claimed, refreshed and acked in one transaction. Returns the
     * keys that go their own way, each as a turn of its own: all of them when the transaction rolled back and it was
     * not a projection's own error ("not now" — a lock wait the one transaction's bound cut short, a deadlock, a lost
     * connection — or back-pressure), else the others than the one whose refresh threw, whose failure is recorded as it
     * is. Such a turn looked at its key only, as a claim by key does; a look {@code lookWanted} of a projection is asked
     * of its next turn.
     */
    Lone take(List<MarkKey> keys, Function<String, DueLook> looks, Predicate<String> lookWanted,
              ToIntFunction<String> batchSizes, Set<String> lookBeforeEnding) {
        OneTransactionRefresh.Result result;
        inFlight.batchBegins(keys.size());
        inFlight.refreshBegins();
        try {
            result = refresher.oneTransaction().refresh(keys);
        } finally {
            inFlight.refreshEnds();
            inFlight.batchEnds(keys.size());
        }
        if (result.ended() == OneTransactionRefresh.Ended.ROLLED_BACK) {
            Throwable failure = result.failure();
            MarkKey failed = result.failed();
            if (failed == null || refresher.isBackPressure(failed.projection(), failure) || Transient.is(failure)) {
                return new Lone(Claim.EMPTY, keys, true);
            }
            if (keys.size() > 1) {
                refresher.oneTransaction().restFromPairs(failed.projection());
            }
            Claim recorded = recordFailureOfOneTransaction(failed.projection(), failed, failure, result.took(),
                    batchSizes.applyAsInt(failed.projection()), looks.apply(failed.projection()), lookBeforeEnding);
            return new Lone(recorded, keys.stream().filter(key -> !key.equals(failed)).toList(), false);
        }
        for (MarkKey key : keys) {
            String projection = key.projection();
            ClaimedMark mark = null;
            AckOutcome outcome = null;
            for (int i = 0; i < result.marks().size(); i++) {
                if (result.marks().get(i).key().equals(key)) {
                    mark = result.marks().get(i);
                    outcome = result.outcomes().get(i);
                }
            }
            pacing.liveClaimed(projection, mark == null ? List.of() : List.of(mark), batchSizes.applyAsInt(projection));
            if (mark == null) {
                lookBeforeEnding.add(projection); // skipped (held a moment by another transaction): a look finds it
                continue;
            }
            if (outcome != AckOutcome.SUCCESS) {
                looks.apply(projection).lookAgain(); // marked anew meanwhile: due again now
                lookBeforeEnding.add(projection);
            }
            // acked as claimed: the turn's one key is done, and unlike after an ordinary claim by key (which may have
            // skipped a handed key) no look is owed before the drainer ends; other due marks (retries, other instances'
            // orphans) are found by the looks DueLook wants and by the sweep (docs/design.md D53)
            if (lookWanted.test(projection)) {
                // the look this claim would have made, in the next turn: after the key's refresh, not before it
                handoff.askForDueLook(Set.of(projection));
            }
        }
        return new Lone(result.marks().isEmpty() ? Claim.EMPTY : Claim.SHORT, List.of(), false);
    }

    /**
     * A turn with its {@link Turn#companion}: the two lone keys, of one commit, in one transaction (docs/design.md D60).
     * What that leaves of the companion's key is handed back to the hand-off, a turn of its own for whichever drainer is
     * free first, not held through the turn's own key's ordinary turn; what it leaves of the turn's own key is returned
     * to go its own way on this drainer.
     */
    Lone takePair(Turn turn, Function<String, DueLook> looks, ToIntFunction<String> batchSizes,
                  Set<String> lookBeforeEnding, Consumer<Slot> helpers) {
        MarkKey own = turn.keys().get(0);
        MarkKey second = turn.companion().keys().get(0);
        Lone together;
        try {
            together = take(List.of(own, second), looks, projection -> looks.apply(projection).wanted(), batchSizes,
                    lookBeforeEnding);
        } catch (RuntimeException | Error e) {
            handBack(turn.companion(), helpers); // refreshed or not: a claim of a refreshed key finds nothing
            throw e;
        }
        if (together.ownWay().contains(second)) {
            handBack(turn.companion(), helpers);
        }
        return new Lone(together.claim(), together.ownWay().contains(own) ? List.of(own) : List.of(),
                together.rolledBack());
    }

    /** A companion's key goes back to the hand-off, its turn ended: a drainer starts for it if none will take it. */
    private void handBack(Turn companion, Consumer<Slot> helpers) {
        companion.end();
        Slot helper = handoff.offer(companion.keys());
        if (helper != null) {
            helpers.accept(helper);
        }
    }

    /**
     * The projection's refresh threw in one transaction, which rolled back whole: the mark, as it was, is claimed the
     * ordinary way and the failure recorded on it once, as the ordinary path records it — never refreshed twice for
     * one attempt, so a non-retryable failure parks it at once. Claimed by another worker meanwhile, it is theirs.
     */
    private Claim recordFailureOfOneTransaction(String projection, MarkKey key, Throwable failure, Duration took,
                                                int batchSize, DueLook look, Set<String> lookBeforeEnding) {
        List<ClaimedMark> again = claimer.claimTurn(projection, List.of(key), batchSize, null);
        pacing.liveClaimed(projection, again, batchSize);
        lookBeforeEnding.add(projection);
        if (again.isEmpty()) {
            return Claim.EMPTY;
        }
        inFlight.batchBegins(1);
        try {
            refresher.failedInOneTransaction(again.get(0), failure, took);
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
            Claim recorded = recordFailureOfOneTransaction(projection, mark.key(), done.failure(), done.took(),
                    batchSize, look, lookBeforeEnding);
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
