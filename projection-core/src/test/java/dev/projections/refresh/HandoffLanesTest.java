package dev.projections.refresh;

import static dev.projections.refresh.NamedProjection.named;
import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.MarkKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The hand-off's lanes (docs/design.md D45): a drainer's turn is one projection's, at most its batch of keys; a lane
 * at its cap is passed over and taken again once a turn of it ends; of the lanes a drainer can serve, the one served
 * least recently goes first; a collector that takes one lane while another waits reserves a helper for it, so no key
 * waits for a drainer busy elsewhere. On a clock the test holds still (no linger, no keep-alive unless said).
 */
class HandoffLanesTest {

    private static final Set<String> ALL = Set.of("slow", "fast", "other");
    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @AfterEach
    void stopCollectors() {
        threads.shutdownNow();
    }

    private static MarkKey key(String projection, int i) {
        return new MarkKey(projection, "", String.valueOf(i));
    }

    /** Four workers; slow may have two of them, the others all; batches of three. */
    private Handoff handoff(Duration keepAlive) {
        Map<String, Integer> caps = Map.of("slow", 2);
        return new Handoff(1000, 4, Duration.ZERO, keepAlive, nanos::get,
                projection -> caps.getOrDefault(projection, 4), projection -> 3);
    }

    private static Slot running(Handoff handoff) {
        Slot slot = handoff.tryReserve();
        assertThat(slot.run()).isTrue();
        return slot;
    }

    @Test
    void aTurnTakesOneProjectionsKeysAtMostItsBatch() {
        Handoff handoff = handoff(Duration.ZERO);
        handoff.offer(List.of(key("slow", 1), key("fast", 1), key("slow", 2), key("slow", 3), key("slow", 4)));
        Slot slot = running(handoff);

        Turn turn = slot.nextTurn(false, ALL);

        assertThat(turn.projection()).isEqualTo("slow");
        assertThat(turn.keys()).containsExactly(key("slow", 1), key("slow", 2), key("slow", 3));
        assertThat(handoff.waiting()).isEqualTo(2);
    }

    @Test
    void aLaneAtItsCapIsPassedOverUntilOneOfItsTurnsEnds() {
        Handoff handoff = handoff(Duration.ZERO);
        handoff.offer(List.of(key("slow", 1), key("slow", 2), key("slow", 3), key("slow", 4), key("slow", 5),
                key("slow", 6), key("slow", 7)));
        Turn first = running(handoff).nextTurn(false, ALL);
        Turn second = running(handoff).nextTurn(false, ALL);
        Slot third = running(handoff);

        assertThat(third.nextTurn(false, ALL)).as("slow has its two drainers").isNull();
        assertThat(handoff.busy("slow")).isEqualTo(2);
        handoff.offer(List.of(key("fast", 1)));
        assertThat(third.nextTurn(false, ALL).projection()).as("another projection's keys are served").isEqualTo("fast");

        first.end();
        first.end(); // ending twice frees one drainer only
        assertThat(handoff.busy("slow")).isEqualTo(1);
        Turn again = third.nextTurn(false, ALL);
        assertThat(again.keys()).containsExactly(key("slow", 7));
        assertThat(handoff.busy("slow")).isEqualTo(2);
        second.end();
        again.end();
        assertThat(handoff.busy("slow")).isZero();
    }

    /**
     * Isolation with three projections or more (docs/design.md D45): two slow lanes, each capped at workers − 1, take
     * every drainer but one between them; the last is kept for a lane without a drainer, so a third projection's keys
     * are taken at once, not after one of the slow turns ends.
     */
    @Test
    void twoSlowLanesAtTheirCapsLeaveTheLastDrainerForAThirdProjection() {
        Handoff handoff = new Handoff(1000, 4, Duration.ZERO, Duration.ZERO, nanos::get, projection -> 3,
                projection -> 1);
        List<Turn> slowTurns = new ArrayList<>();
        List<Slot> drainers = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            drainers.add(running(handoff));
        }
        for (int i = 0; i < 10; i++) {
            handoff.offer(List.of(key("slow", i), key("fast", i)));
        }
        for (int i = 0; i < 3; i++) {
            slowTurns.add(drainers.get(i).nextTurn(false, ALL));
        }
        assertThat(slowTurns).extracting(Turn::projection).as("the slow lanes take three drainers")
                .containsExactlyInAnyOrder("slow", "fast", "slow");

        assertThat(drainers.get(3).nextTurn(false, ALL)).as("the last drainer is not a slow lane's third").isNull();
        handoff.offer(List.of(key("other", 1)));
        Turn third = drainers.get(3).nextTurn(false, ALL);
        assertThat(third.projection()).as("kept for the projection without a drainer").isEqualTo("other");
        assertThat(third.keys()).containsExactly(key("other", 1));

        third.end();
        slowTurns.get(0).end();
        assertThat(drainers.get(3).nextTurn(false, ALL)).as("with two free, a slow lane may take one more")
                .isNotNull();
    }

    /** A lane capped at every worker (one projection deployed, or its own {@code workers} set so) is not held back. */
    /**
     * The default cap (workers less one, two projections deployed) holds back a projection only while another one can
     * be claimed: with the other paused or suspended, the one with work gets every drainer (issue 45: a rebuild of
     * order-search had 3 of 4 drainers while customer-stats was paused). A cap someone set still holds.
     */
    @Test
    void theDefaultCapYieldsToTheOnlyClaimableProjectionAndASetCapDoesNot() {
        Map<String, String> defaults = Map.of("projection.batch-size", "1");
        Map<String, String> set = Map.of("projection.batch-size", "1", "projection.slow.workers", "3");

        assertThat(turnsTaken(resolvedHandoff(defaults), Set.of("slow", "fast"))).as("another projection claimable: 3 of 4")
                .isEqualTo(3);
        assertThat(turnsTaken(resolvedHandoff(defaults), Set.of("slow"))).as("the only claimable one: all 4")
                .isEqualTo(4);
        assertThat(turnsTaken(resolvedHandoff(set), Set.of("slow"))).as("a cap someone set holds").isEqualTo(3);
    }

    /** How many of 4 running drainers get a turn of slow's 8 keys, each asking once with {@code claimable}. */
    private static int turnsTaken(Handoff handoff, Set<String> claimable) {
        List<Slot> drainers = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            drainers.add(running(handoff));
        }
        for (int i = 0; i < 8; i++) {
            handoff.offer(List.of(key("slow", i)));
        }
        int taken = 0;
        for (Slot drainer : drainers) {
            if (drainer.nextTurn(false, claimable) != null) {
                taken++;
            }
        }
        return taken;
    }

    /** A hand-off as the server makes it: 4 workers, projections slow and fast, each one's settings resolved. */
    private static Handoff resolvedHandoff(Map<String, String> values) {
        java.util.Properties deployment = new java.util.Properties();
        deployment.putAll(values);
        dev.projections.config.SettingSource source = dev.projections.config.SettingSource.standard(
                new java.util.Properties(), Map.of(), deployment);
        dev.projections.config.Settings global = dev.projections.config.Settings.load(source);
        dev.projections.config.Settings resolved = dev.projections.config.ProjectionSettings.resolve(global, source,
                List.of(named("slow"), named("fast")));
        return Handoff.of(resolved);
    }

    @Test
    void aLaneCappedAtEveryWorkerIsNotHeldBackByTheReserve() {
        Handoff handoff = new Handoff(1000, 2, Duration.ZERO, Duration.ZERO, nanos::get, projection -> 2,
                projection -> 1);
        Slot one = running(handoff);
        Slot two = running(handoff);
        handoff.offer(List.of(key("slow", 1), key("slow", 2)));
        Turn first = one.nextTurn(false, ALL);
        Turn second = two.nextTurn(false, ALL);
        assertThat(List.of(first.projection(), second.projection())).as("its own workers setting allows every one")
                .containsExactly("slow", "slow");
    }

    @Test
    void theLaneServedLeastRecentlyGoesFirst() {
        Handoff handoff = handoff(Duration.ZERO);
        Slot slot = running(handoff);
        List<String> served = new ArrayList<>();
        for (int round = 0; round < 3; round++) {
            // fast always has more waiting than a batch; the others a few keys each round
            handoff.offer(List.of(key("fast", 10 * round), key("fast", 10 * round + 1), key("fast", 10 * round + 2),
                    key("fast", 10 * round + 3), key("other", round), key("slow", round)));
            for (int turn = 0; turn < 3; turn++) {
                Turn taken = slot.nextTurn(false, ALL);
                served.add(taken.projection());
                taken.end();
            }
        }
        assertThat(served).as("every projection once in every three turns, the backlog notwithstanding")
                .containsExactly("fast", "other", "slow", "fast", "other", "slow", "fast", "other", "slow");
    }

    @Test
    void aCollectorThatTakesOneLaneReservesAHelperForAnotherThatWaits() throws Exception {
        Handoff handoff = handoff(Duration.ofHours(1));
        Slot collector = handoff.offer(List.of(key("slow", 1), key("fast", 1)));
        collector.run();

        Turn turn = collector.nextTurn(true, ALL);

        assertThat(turn.projection()).isEqualTo("slow");
        assertThat(turn.helper()).as("fast's key waits and no drainer collects: a helper").isNotNull();
        assertThat(handoff.inFlight()).isEqualTo(2);
        assertThat(turn.helper().run()).isTrue();
        Turn helped = turn.helper().nextTurn(true, ALL);
        assertThat(helped.keys()).containsExactly(key("fast", 1));
        assertThat(helped.helper()).as("nothing else waits").isNull();
    }

    @Test
    void aCollectorWaitsForACappedLaneAndTakesItWhenATurnOfItEnds() throws Exception {
        Handoff handoff = handoff(Duration.ofHours(1));
        handoff.offer(List.of(key("slow", 1), key("slow", 2), key("slow", 3), key("slow", 4), key("slow", 5),
                key("slow", 6), key("slow", 7)));
        Turn first = running(handoff).nextTurn(false, ALL);
        running(handoff).nextTurn(false, ALL);
        Slot collector = running(handoff);
        CompletableFuture<Turn> taken = CompletableFuture.supplyAsync(() -> collector.nextTurn(true, ALL),
                threads);
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (handoff.collecting() < 1 && System.nanoTime() < until) {
            Thread.onSpinWait();
        }
        assertThat(handoff.collecting()).isEqualTo(1);
        assertThat(taken).as("slow is at its cap").isNotDone();

        first.end();

        assertThat(taken.get(10, TimeUnit.SECONDS).keys()).containsExactly(key("slow", 7));
    }

    @Test
    void aLookOwedMakesALaneReadyWithoutKeysAndAPausedProjectionsKeysAreDropped() {
        Handoff handoff = handoff(Duration.ZERO);
        Slot slot = handoff.offer(List.of(key("slow", 1)));
        slot.run();
        assertThat(handoff.askForDueLook(Set.of("fast"))).as("started, its first turn will have the look").isTrue();

        Turn turn = slot.nextTurn(false, Set.of("fast")); // slow is paused

        assertThat(turn.projection()).isEqualTo("fast");
        assertThat(turn.keys()).isEmpty();
        assertThat(turn.lookOwed()).isTrue();
        assertThat(handoff.waiting()).as("slow's key dropped: its mark waits in the table").isZero();
        turn.end();
        assertThat(slot.finish(false, false)).as("slow owes a look, but it is paused: no successor for it").isNull();

        Slot resumed = handoff.tryReserve();
        resumed.run();
        Turn afterResume = resumed.nextTurn(false, ALL);
        assertThat(afterResume.projection()).isEqualTo("slow");
        assertThat(afterResume.lookOwed()).as("resumed: its marks are looked for").isTrue();
    }

    @Test
    void aCollectorsViewOfThePausesMayBeStaleSoItPassesAPausedLaneOverWithoutDroppingItsKeys() {
        Handoff handoff = handoff(Duration.ZERO);
        Slot slot = handoff.offer(List.of(key("slow", 1)));
        slot.run();

        assertThat(slot.nextTurn(true, Set.of("fast"))).isNull();

        assertThat(handoff.waiting()).as("kept: slow may have been resumed since the view was read").isEqualTo(1);
        assertThat(handoff.anyWaiting(ALL)).as("a drainer about to end looks again with a fresh view").isTrue();
        assertThat(slot.nextTurn(false, ALL).keys()).containsExactly(key("slow", 1));
    }

    @Test
    void aCommitToALaneAtItsCapStartsNoDrainerItsOwnWillTakeIt() {
        Handoff handoff = handoff(Duration.ZERO);
        Slot one = handoff.offer(List.of(key("slow", 1), key("slow", 2), key("slow", 3), key("slow", 4)));
        one.run();
        Slot helper = one.nextTurn(false, ALL).helper();
        assertThat(helper).as("a key of slow is left and slow may have one more drainer").isNotNull();
        helper.run();
        helper.nextTurn(false, ALL);

        assertThat(handoff.offer(List.of(key("slow", 5)))).as("slow at its cap: nobody else may take it").isNull();
        assertThat(handoff.askForDueLook(Set.of("slow"))).as("nor for its due marks").isTrue();
        assertThat(handoff.offer(List.of(key("fast", 1)))).as("fast: a drainer starts").isNotNull();
    }
}
