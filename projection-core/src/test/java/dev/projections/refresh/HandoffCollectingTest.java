package dev.projections.refresh;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.MarkKey;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The hand-off's batching (docs/design.md D41) on a clock the test moves: a drainer collecting between passes takes a
 * lone commit at once, waits for a burst's companions until the first has lingered or a batch is full, and ends
 * after its keep-alive. A collecting drainer runs on a thread of its own; the test waits for what it returns, and
 * a wait it should not end is shown by a key taken only when the test's next step allows it.
 */
class HandoffCollectingTest {

    private static final Duration LINGER = Duration.ofMillis(8);
    /** A quarter of the linger: keys offered closer together are a burst. */
    private static final Duration BURST_GAP = Duration.ofMillis(2);
    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

    private static MarkKey key(int i) {
        return new MarkKey("p", "", String.valueOf(i));
    }

    /** The projection's batch size, for the hand-offs made after it is set. */
    private int batch = 10;

    private Handoff handoff(Duration keepAlive) {
        return new Handoff(100, 2, LINGER, keepAlive, nanos::get, projection -> 2, projection -> batch);
    }

    /** The keys of the slot's next turn, collecting; the turn ends at once. */
    private static List<MarkKey> nextKeys(Slot slot) {
        return keys(slot.nextTurn(true, Set.of("p")));
    }

    private static List<MarkKey> keys(Turn turn) {
        if (turn == null) {
            return List.of();
        }
        turn.end();
        return turn.keys();
    }

    private void advance(Duration by) {
        nanos.addAndGet(by.toNanos());
    }

    /** Threads of this test's own: the common pool may have one thread, and a collector may still wait on it. */
    private final java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newCachedThreadPool();

    @org.junit.jupiter.api.AfterEach
    void stopCollectors() {
        threads.shutdownNow(); // a collector still waiting is interrupted and returns
    }

    private CompletableFuture<Turn> collectTurn(Slot slot) {
        return CompletableFuture.supplyAsync(() -> slot.nextTurn(true, Set.of("p")), threads);
    }

    private CompletableFuture<List<MarkKey>> collect(Slot slot) {
        return collectTurn(slot).thenApply(HandoffCollectingTest::keys);
    }

    /** Until {@code n} drainers collect: the offers that follow find them waiting. */
    private static void awaitCollecting(Handoff handoff, int n) throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (handoff.collecting() < n && System.nanoTime() < until) {
            Thread.sleep(1);
        }
        assertThat(handoff.collecting()).as("drainers collecting").isEqualTo(n);
    }

    @Test
    void aLoneCommitIsTakenAtOnceByTheDrainerCollectingAndStartsNoOther() throws Exception {
        Handoff handoff = handoff(Duration.ofHours(1));
        Slot slot = handoff.tryReserve();
        slot.run();
        CompletableFuture<List<MarkKey>> taken = collect(slot);
        awaitCollecting(handoff, 1);

        assertThat(handoff.offer(List.of(key(1)))).as("the collecting drainer is told, none starts").isNull();

        assertThat(taken.get(10, TimeUnit.SECONDS)).containsExactly(key(1));
        assertThat(handoff.inFlight()).isEqualTo(1);
    }

    @Test
    void aCommitInABurstWaitsForCompanionsUntilABatchIsFull() throws Exception {
        batch = 3;
        Handoff handoff = handoff(Duration.ofHours(1));
        Slot slot = handoff.offer(List.of(key(1)));
        slot.run();
        assertThat(nextKeys(slot)).as("alone: at once").containsExactly(key(1));
        advance(Duration.ofMillis(1));
        handoff.offer(List.of(key(2))); // a millisecond after key 1: a burst
        CompletableFuture<List<MarkKey>> taken = collect(slot);
        awaitCollecting(handoff, 1);
        handoff.offer(List.of(key(3)));
        assertThat(taken).as("two of three: it waits on").isNotDone();

        handoff.offer(List.of(key(4)));

        assertThat(taken.get(10, TimeUnit.SECONDS)).containsExactly(key(2), key(3), key(4));
    }

    @Test
    void aCommitInABurstIsTakenOnceItHasLingeredWithWhatCameMeanwhile() throws Exception {
        Handoff handoff = handoff(Duration.ofHours(1));
        Slot slot = handoff.offer(List.of(key(1)));
        slot.run();
        nextKeys(slot);
        advance(Duration.ofMillis(1));
        handoff.offer(List.of(key(2)));
        CompletableFuture<List<MarkKey>> taken = collect(slot);
        awaitCollecting(handoff, 1);
        advance(Duration.ofMillis(2));
        handoff.offer(List.of(key(3)));
        assertThat(taken).as("key 2 has waited 2 of 8 ms").isNotDone();

        advance(LINGER); // the drainer's own timed wait then sees the linger over

        assertThat(taken.get(10, TimeUnit.SECONDS)).containsExactly(key(2), key(3));
    }

    @Test
    void aCommitAfterAQuietSpellIsAloneAgain() throws Exception {
        Handoff handoff = handoff(Duration.ofHours(1));
        Slot slot = handoff.offer(List.of(key(1)));
        slot.run();
        nextKeys(slot);
        advance(BURST_GAP);
        handoff.offer(List.of(key(2)));

        assertThat(nextKeys(slot)).as("nothing offered in the burst gap before it").containsExactly(key(2));
    }

    @Test
    void keysLeftOverFromAFullBatchGoWithTheNextPassWithoutLingering() {
        batch = 2;
        Handoff handoff = handoff(Duration.ofHours(1));
        Slot slot = handoff.offer(List.of(key(1), key(2), key(3)));
        slot.run();
        assertThat(nextKeys(slot)).containsExactly(key(1), key(2));
        assertThat(nextKeys(slot)).containsExactly(key(3));
    }

    @Test
    void anIdleDrainerStaysForItsKeepAliveThenReturnsNothing() throws Exception {
        Handoff handoff = handoff(Duration.ofMillis(20));
        Slot slot = handoff.tryReserve();
        slot.run();
        CompletableFuture<List<MarkKey>> taken = collect(slot);
        awaitCollecting(handoff, 1);
        assertThat(taken).isNotDone();

        advance(Duration.ofMillis(20));

        assertThat(taken.get(10, TimeUnit.SECONDS)).isEmpty();
        assertThat(handoff.collecting()).isZero();
    }

    @Test
    void theSweepAsksACollectingDrainerToLookAtDueMarksRatherThanStartingAnother() throws Exception {
        Handoff handoff = handoff(Duration.ofHours(1));
        Slot slot = handoff.tryReserve();
        slot.run();
        CompletableFuture<Turn> taken = collectTurn(slot);
        awaitCollecting(handoff, 1);

        assertThat(handoff.askForDueLook(Set.of("p"))).isTrue();

        Turn turn = taken.get(10, TimeUnit.SECONDS);
        assertThat(turn.keys()).isEmpty();
        assertThat(turn.lookOwed()).as("the look is the turn's").isTrue();
        turn.end();
        assertThat(slot.nextTurn(false, Set.of("p"))).as("asked once").isNull();
        assertThat(handoff.inFlight()).isEqualTo(1);
    }

    @Test
    void withNoDrainerCollectingOrAboutToRunTheSweepMustStartOne() {
        Handoff handoff = handoff(Duration.ofHours(1));
        assertThat(handoff.askForDueLook(Set.of("p"))).isFalse();
        Slot slot = handoff.tryReserve();
        assertThat(handoff.askForDueLook(Set.of("p"))).as("about to run: asked too").isTrue();
        slot.run();
        Turn turn = slot.nextTurn(false, Set.of("p"));
        assertThat(turn.lookOwed()).as("its first turn has the look").isTrue();
        assertThat(handoff.askForDueLook(Set.of("p"))).as("working").isFalse();
    }

    @Test
    void anAskedDrainerTakesWhatWaitsWithItsLookAndThenCollectsAsBefore() throws Exception {
        Handoff handoff = handoff(Duration.ofHours(1));
        Slot slot = handoff.offer(List.of(key(1)));
        slot.run();
        nextKeys(slot);
        CompletableFuture<Turn> lingering = collectTurn(slot);
        awaitCollecting(handoff, 1);
        advance(Duration.ofMillis(1));
        handoff.offer(List.of(key(2))); // a burst: it lingers

        assertThat(handoff.askForDueLook(Set.of("p"))).isTrue();

        Turn turn = lingering.get(10, TimeUnit.SECONDS);
        assertThat(turn.keys()).as("taken with the look, not held").containsExactly(key(2));
        assertThat(turn.lookOwed()).isTrue();
        turn.end();
        CompletableFuture<List<MarkKey>> next = collect(slot);
        awaitCollecting(handoff, 1);
        assertThat(next).as("the ask read: it collects again").isNotDone();
        advance(BURST_GAP);
        handoff.offer(List.of(key(3)));
        assertThat(next.get(10, TimeUnit.SECONDS)).containsExactly(key(3));
    }

    @Test
    void keysOfferedToADrainerThatNeverStartedAskForASweepStartedOne() {
        Handoff handoff = handoff(Duration.ofHours(1));
        Slot slot = handoff.offer(List.of(key(1)));
        assertThat(handoff.offer(List.of(key(2)))).as("left to the one about to run").isNull();

        slot.startFailed();

        assertThat(handoff.takeSweepRequest()).isTrue();
    }

    @Test
    void aDrainerEndingWhileAnotherCollectsStartsNoSuccessorForTheKeysThatOneWillTake() throws Exception {
        batch = 2;
        Handoff handoff = handoff(Duration.ofHours(1));
        Slot collecting = handoff.tryReserve();
        Slot ending = handoff.tryReserve();
        collecting.run();
        ending.run();
        handoff.offer(List.of(key(0)));
        assertThat(handoff.take(10)).containsExactly(key(0)); // what follows within a millisecond is a burst
        CompletableFuture<List<MarkKey>> taken = collect(collecting);
        awaitCollecting(handoff, 1);
        advance(Duration.ofMillis(1));
        handoff.offer(List.of(key(1)));
        handoff.offer(List.of(key(2)));

        assertThat(ending.finish(false, false)).isNull();
        assertThat(taken.get(10, TimeUnit.SECONDS)).containsExactly(key(1), key(2));
    }

    @Test
    void stoppingEndsEveryCollectingDrainerAtOnce() throws Exception {
        Handoff handoff = handoff(Duration.ofHours(1));
        Slot one = handoff.tryReserve();
        Slot two = handoff.tryReserve();
        one.run();
        two.run();
        CompletableFuture<List<MarkKey>> first = collect(one);
        CompletableFuture<List<MarkKey>> second = collect(two);
        awaitCollecting(handoff, 2);

        handoff.wakeAll();

        assertThat(first.get(10, TimeUnit.SECONDS)).isEmpty();
        assertThat(second.get(10, TimeUnit.SECONDS)).isEmpty();
        assertThat(nextKeys(one)).as("and returns at once after").isEmpty();
    }

    @Test
    void withoutLingerOrKeepAliveADrainerTakesWhatWaitsAndNeverWaits() {
        Handoff handoff = new Handoff(100, 1);
        Slot slot = handoff.offer(List.of(key(1)));
        slot.run();
        handoff.offer(List.of(key(2)));
        assertThat(nextKeys(slot)).containsExactly(key(1), key(2));
        assertThat(nextKeys(slot)).isEmpty();
    }
}
