package dev.projections.refresh;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.MarkKey;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * A commit that marks two projections (docs/design.md D60): the turn of one lone key takes the other projection's lone
 * key of the same commit as its companion, to share its transaction, when both projections pair; it holds one of that
 * projection's workers as any turn does, and both end together. No helper is reserved for a lane the companion
 * emptied. Only where the companion's lane would otherwise wait for a drainer: with a drainer collecting or a slot free
 * the two lanes go in parallel. Anything else than two lone keys of one tenant, owing no look, goes turn by turn as
 * before. On a clock the test holds still (no linger, no keep-alive).
 */
class HandoffPairsTest {

    private static final Set<String> ALL = Set.of("orders", "customers", "slow");
    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

    private static MarkKey key(String projection, String tenant, int i) {
        return new MarkKey(projection, tenant, String.valueOf(i));
    }

    private static MarkKey key(String projection, int i) {
        return key(projection, "", i);
    }

    /** One worker: a drainer's other lane waits for it. */
    private Handoff handoff() {
        return handoff(1);
    }

    /** {@code workers}, customers capped at one; orders and customers pair, slow does not. */
    private Handoff handoff(int workers) {
        Map<String, Integer> caps = Map.of("customers", 1);
        Handoff handoff = new Handoff(1000, workers, Duration.ZERO, Duration.ZERO, nanos::get,
                projection -> caps.getOrDefault(projection, workers), projection -> 10);
        handoff.pairLoneKeys(projection -> !projection.equals("slow"));
        return handoff;
    }

    private static Slot running(Handoff handoff) {
        Slot slot = handoff.tryReserve();
        assertThat(slot.run()).isTrue();
        return slot;
    }

    /**
     * Offers {@code keys} as a commit does and runs the drainer it starts (or, when it starts none, one more), which
     * takes its first turn at once: no other drainer will take anything meanwhile.
     */
    private static Turn committedAndTaken(Handoff handoff, List<MarkKey> keys, Set<String> claimable) {
        Slot slot = handoff.offer(keys);
        if (slot == null) {
            slot = handoff.tryReserve();
        }
        assertThat(slot.run()).isTrue();
        return slot.nextTurn(false, claimable);
    }

    @Test
    void aCommitOfTwoProjectionsLoneKeysIsOneTurnWithACompanionAndNoHelper() {
        Handoff handoff = handoff();
        Slot slot = running(handoff);
        handoff.offer(List.of(key("orders", 1), key("customers", 7)));

        Turn turn = slot.nextTurn(true, ALL);

        assertThat(turn.keys()).containsExactly(key("orders", 1));
        assertThat(turn.companion()).isNotNull();
        assertThat(turn.companion().keys()).containsExactly(key("customers", 7));
        assertThat(turn.companion().lookOwed()).isFalse();
        assertThat(turn.helper()).as("no lane left waiting for a drainer").isNull();
        assertThat(handoff.inFlight()).isEqualTo(1);
        assertThat(handoff.busy("customers")).as("the companion holds one of its workers").isEqualTo(1);
        assertThat(handoff.waiting()).isZero();

        turn.end();

        assertThat(handoff.busy("orders")).isZero();
        assertThat(handoff.busy("customers")).as("ended with its turn").isZero();
    }

    @Test
    void aCompanionIsNeverTakenFromALaneAtItsCap() {
        Handoff handoff = handoff(2);

        Turn customers = committedAndTaken(handoff, List.of(key("customers", 1)), ALL);
        Turn orders = committedAndTaken(handoff, List.of(key("orders", 1), key("customers", 2)), ALL);

        assertThat(orders.projection()).isEqualTo("orders");
        assertThat(orders.companion()).as("customers has its one drainer").isNull();
        customers.end();
        orders.end();
    }

    @Test
    void keysOfTwoTenantsGoTurnByTurn() {
        Handoff handoff = handoff();

        Turn turn = committedAndTaken(handoff, List.of(key("orders", "acme", 1), key("customers", "globex", 7)), ALL);

        assertThat(turn.companion()).isNull();
    }

    @Test
    void aLaneWithMoreThanOneKeyIsNoCompanion() {
        Handoff handoff = handoff();

        Turn turn = committedAndTaken(handoff, List.of(key("orders", 1), key("customers", 7), key("customers", 8)), ALL);

        assertThat(turn.projection()).isEqualTo("orders");
        assertThat(turn.companion()).isNull();
    }

    @Test
    void aTurnOfMoreThanOneKeyTakesNoCompanion() {
        Handoff handoff = handoff();

        Turn turn = committedAndTaken(handoff, List.of(key("orders", 1), key("orders", 2), key("customers", 7)), ALL);

        assertThat(turn.keys()).hasSize(2);
        assertThat(turn.companion()).isNull();
    }

    @Test
    void aProjectionThatDoesNotPairGoesTurnByTurn() {
        Handoff handoff = handoff();

        Turn first = committedAndTaken(handoff, List.of(key("slow", 1), key("orders", 1)), ALL);

        assertThat(first.companion()).isNull();
    }

    @Test
    void withoutPairingEveryTurnIsOneProjections() {
        Handoff handoff = new Handoff(1000, 1);

        Turn turn = committedAndTaken(handoff, List.of(key("orders", 1), key("customers", 7)), ALL);

        assertThat(turn.companion()).isNull();
    }

    @Test
    void whereAnotherDrainerCollectsTheTwoLanesGoToTwoDrainersInParallel() throws Exception {
        Handoff handoff = new Handoff(1000, 2, Duration.ZERO, Duration.ofSeconds(30), nanos::get,
                projection -> 2, projection -> 10);
        handoff.pairLoneKeys(projection -> true);
        Slot first = running(handoff);
        Slot other = running(handoff);
        ExecutorService threads = Executors.newSingleThreadExecutor();
        try {
            Future<Turn> collected = threads.submit(() -> other.nextTurn(true, ALL));
            long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (handoff.collecting() < 1 && System.nanoTime() < until) {
                Thread.onSpinWait();
            }
            assertThat(handoff.collecting()).as("the other drainer collects").isEqualTo(1);
            handoff.offer(List.of(key("orders", 1), key("customers", 7)));

            Turn mine = first.nextTurn(false, ALL);
            Turn its = collected.get(30, TimeUnit.SECONDS);

            assertThat(mine.companion()).as("the other lane is the collector's").isNull();
            assertThat(its).isNotNull();
            assertThat(List.of(mine.projection(), its.projection())).containsExactlyInAnyOrder("orders", "customers");
        } finally {
            threads.shutdownNow();
        }
    }

    /** At light load a free slot starts a helper for the other lane: two read models, each in its own transaction. */
    @Test
    void whereADrainerMayStartTheOtherLaneGetsAHelperNotACompanion() {
        Handoff handoff = handoff(2);

        Turn turn = committedAndTaken(handoff, List.of(key("orders", 1), key("customers", 7)), ALL);

        assertThat(turn.companion()).isNull();
        assertThat(turn.helper()).as("a drainer for the other lane").isNotNull();
    }

    @Test
    void underBackPressureTheOtherLaneIsACompanion() {
        Handoff handoff = handoff(2);
        Slot slot = running(handoff);
        handoff.pressedFor(Duration.ofSeconds(1));
        handoff.offer(List.of(key("orders", 1), key("customers", 7)));

        Turn turn = slot.nextTurn(false, ALL);

        assertThat(turn.companion()).as("no drainer may start for it").isNotNull();
    }

    @Test
    void aCompanionMustPairItselfNotOnlyTheFirst() {
        Handoff handoff = handoff();

        Turn turn = committedAndTaken(handoff, List.of(key("orders", 1), key("slow", 1)), ALL);

        assertThat(turn.projection()).isEqualTo("orders");
        assertThat(turn.companion()).isNull();
    }

    /** The reserve counts drainers: a companion holds its projection's worker, not a drainer. */
    @Test
    void aCompanionTakesNoDrainerFromTheReserve() {
        Map<String, Integer> caps = Map.of("orders", 2);
        Handoff handoff = new Handoff(1000, 3, Duration.ZERO, Duration.ZERO, nanos::get,
                projection -> caps.getOrDefault(projection, 3), projection -> 10);
        handoff.pairLoneKeys(projection -> true);
        Slot elsewhere = running(handoff);
        elsewhere.busy();
        Slot alsoElsewhere = running(handoff);
        alsoElsewhere.busy();
        Turn pair = committedAndTaken(handoff, List.of(key("orders", 1), key("customers", 7)), ALL);
        assertThat(pair.companion()).isNotNull();
        assertThat(elsewhere.finish(false, false)).isNull();

        Turn second = committedAndTaken(handoff, List.of(key("orders", 2), key("orders", 3)), ALL);

        assertThat(second).as("orders' second drainer: one more stays free").isNotNull();
        assertThat(second.projection()).isEqualTo("orders");
    }

    /** A drainer hands its companion's key back and ends that turn first: the drainers counted stay right. */
    @Test
    void aCompanionEndedBeforeItsTurnLeavesTheReserveAsItWas() {
        Map<String, Integer> caps = Map.of("orders", 2, "slow", 2);
        Handoff handoff = new Handoff(1000, 3, Duration.ZERO, Duration.ZERO, nanos::get,
                projection -> caps.getOrDefault(projection, 3), projection -> 10);
        handoff.pairLoneKeys(projection -> !projection.equals("slow"));
        Slot elsewhere = running(handoff);
        elsewhere.busy();
        Slot alsoElsewhere = running(handoff);
        alsoElsewhere.busy();
        Slot pairing = handoff.offer(List.of(key("orders", 1), key("customers", 7)));
        assertThat(pairing.run()).isTrue();
        Turn pair = pairing.nextTurn(false, ALL);
        assertThat(pair.companion()).isNotNull();
        pair.companion().end(); // handed back
        pair.end();
        assertThat(pairing.finish(false, false)).isNull();
        assertThat(elsewhere.finish(false, false)).isNull();
        assertThat(alsoElsewhere.finish(false, false)).isNull();
        assertThat(handoff.inFlight()).isZero();

        Turn slow = committedAndTaken(handoff, List.of(key("slow", 1), key("slow", 2)), ALL);
        Turn orders = committedAndTaken(handoff, List.of(key("orders", 2), key("orders", 3)), ALL);
        assertThat(slow.projection()).isEqualTo("slow");
        assertThat(orders.projection()).isEqualTo("orders");
        assertThat(handoff.offer(List.of(key("slow", 3))))
                .as("two capped lanes with a drainer each: the last drainer is kept, none starts for slow").isNull();
    }

    @Test
    void aPairingRuleThatThrowsLeavesTheTurnAloneAndItsLaneFreeOnceItEnds() {
        Handoff handoff = new Handoff(1000, 1, Duration.ZERO, Duration.ZERO, nanos::get,
                projection -> 1, projection -> 10);
        handoff.pairLoneKeys(projection -> {
            throw new IllegalStateException("settings gone");
        });

        Turn turn = committedAndTaken(handoff, List.of(key("orders", 1), key("customers", 7)), ALL);

        assertThat(turn.companion()).isNull();
        turn.end();
        assertThat(handoff.busy(turn.projection())).isZero();
    }

    @Test
    void aTurnThatOwesALookTakesNoCompanion() {
        Handoff handoff = handoff();
        handoff.askForDueLook(Set.of("customers"));

        Turn turn = committedAndTaken(handoff, List.of(key("customers", 7), key("orders", 1)), ALL);

        assertThat(turn.projection()).isEqualTo("customers");
        assertThat(turn.lookOwed()).isTrue();
        assertThat(turn.companion()).isNull();
    }

    @Test
    void aLaneThatOwesALookIsNoCompanion() {
        Handoff handoff = handoff();
        Slot slot = handoff.offer(List.of(key("orders", 1), key("customers", 7)));
        handoff.askForDueLook(Set.of("customers"));
        assertThat(slot.run()).isTrue();

        Turn turn = slot.nextTurn(false, ALL);

        assertThat(turn.projection()).isEqualTo("orders");
        assertThat(turn.companion()).isNull();
    }

    @Test
    void aPausedProjectionsKeyIsNoCompanion() {
        Handoff handoff = handoff();
        Slot slot = handoff.offer(List.of(key("orders", 1), key("customers", 7)));
        assertThat(slot.run()).isTrue();

        Turn turn = slot.nextTurn(true, Set.of("orders"));

        assertThat(turn.projection()).isEqualTo("orders");
        assertThat(turn.companion()).isNull();
    }

    @Test
    void aCommitsTwoLoneKeysTakenByTheDrainerItStartsArePaired() {
        Handoff handoff = handoff();

        Turn turn = committedAndTaken(handoff, List.of(key("orders", 1), key("customers", 7)), ALL);

        assertThat(turn.companion()).isNotNull();
        assertThat(List.of(turn.projection(), turn.companion().projection()))
                .containsExactlyInAnyOrder("orders", "customers");
    }
}
