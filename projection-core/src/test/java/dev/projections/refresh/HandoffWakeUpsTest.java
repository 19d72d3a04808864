package dev.projections.refresh;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.MarkKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Who a commit wakes (issue 47: the hand-off to an idle drainer at the cost of a condition signal): of the drainers
 * collecting, one per lane its keys came into — the one that began collecting last, so the longest idle stay idle and
 * end at their keep-alive — and every one only when no collector may take a lane; a collector that takes a turn while
 * another lane waits wakes one for it. A drainer nothing woke is still waiting on its own condition, and has not looked
 * again, the moment the offer returns: the test reads both in one hold of the hand-off's lock, so no sleep decides
 * anything (a woken collector is off its condition until it has looked).
 */
class HandoffWakeUpsTest {

    private static final Set<String> EVERY = Set.of("p", "q", "r");
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
    /** The hand-off's clock is read once per look a collector makes: each thread's reads are counted. */
    private final Map<Thread, AtomicInteger> looks = new ConcurrentHashMap<>();
    private final List<Slot> slots = new ArrayList<>();
    private final List<Thread> collectors = new CopyOnWriteArrayList<>();

    @AfterEach
    void stopCollectors() {
        threads.shutdownNow(); // a collector still waiting is interrupted and returns
    }

    private Handoff handoff(Duration linger) {
        return new Handoff(100, 4, linger, Duration.ofHours(1), () -> {
            looks.computeIfAbsent(Thread.currentThread(), thread -> new AtomicInteger()).incrementAndGet();
            return nanos.get();
        }, projection -> 4, projection -> 10);
    }

    private static MarkKey key(String projection, int id) {
        return new MarkKey(projection, "", String.valueOf(id));
    }

    /** A drainer collecting for {@code claimable}, once the hand-off counts it among the collectors. */
    private CompletableFuture<Turn> collecting(Handoff handoff, Set<String> claimable) throws InterruptedException {
        int before = handoff.collecting();
        Slot slot = handoff.tryReserve();
        slot.run();
        CompletableFuture<Turn> turn = CompletableFuture.supplyAsync(() -> {
            collectors.add(Thread.currentThread());
            return slot.nextTurn(true, claimable);
        }, threads);
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (handoff.collecting() == before && System.nanoTime() < until) {
            Thread.sleep(1);
        }
        assertThat(handoff.collecting()).as("drainers collecting").isEqualTo(before + 1);
        slots.add(slot);
        return turn;
    }

    private int looksOf(Thread thread) {
        AtomicInteger count = looks.get(thread);
        return count == null ? 0 : count.get();
    }

    /** Each collector's looks so far, read under the hand-off's lock (a collector looks while it holds it). */
    private List<Integer> looks(Handoff handoff) {
        return handoff.locked(() -> collectors.stream().map(this::looksOf).toList());
    }

    /** For each collector, whether nothing woke it since {@code before}: still on its condition, no look since. */
    private List<Boolean> untouched(Handoff handoff, List<Integer> before) {
        return handoff.locked(() -> IntStream.range(0, slots.size())
                .mapToObj(i -> handoff.slots.waitsToBeWoken(slots.get(i))
                        && looksOf(collectors.get(i)) == before.get(i))
                .toList());
    }

    /** The keys of the turn a collector took; the turn stays open (its end wakes every collector). */
    private static List<MarkKey> keysOf(CompletableFuture<Turn> turn) throws Exception {
        return turn.get(10, TimeUnit.SECONDS).keys();
    }

    /** Three drainers collecting for every projection, in the order they began. */
    private List<CompletableFuture<Turn>> threeCollecting(Handoff handoff) throws InterruptedException {
        List<CompletableFuture<Turn>> turns = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            turns.add(collecting(handoff, EVERY));
        }
        return turns;
    }

    @Test
    void aCommitWakesOneCollectorTheOneThatBeganCollectingLast() throws Exception {
        Handoff handoff = handoff(Duration.ZERO);
        List<CompletableFuture<Turn>> turns = threeCollecting(handoff);
        CompletableFuture<Turn> first = turns.get(0);
        CompletableFuture<Turn> second = turns.get(1);
        CompletableFuture<Turn> third = turns.get(2);

        List<Integer> before = looks(handoff);
        assertThat(handoff.offer(List.of(key("p", 1)))).as("no drainer starts").isNull();

        assertThat(untouched(handoff, before)).as("not woken: first, second, third").containsExactly(true, true, false);
        assertThat(keysOf(third)).containsExactly(key("p", 1));

        before = looks(handoff);
        handoff.offer(List.of(key("q", 1)));

        assertThat(untouched(handoff, before)).as("the next commit: the latest of those left")
                .containsExactly(true, false, false);
        assertThat(keysOf(second)).containsExactly(key("q", 1));
        assertThat(first).isNotDone();
    }

    @Test
    void aCommitIntoTwoLanesWakesTwoCollectors() throws Exception {
        Handoff handoff = handoff(Duration.ZERO);
        List<CompletableFuture<Turn>> turns = threeCollecting(handoff);
        CompletableFuture<Turn> first = turns.get(0);

        List<Integer> before = looks(handoff);
        handoff.offer(List.of(key("p", 1), key("q", 1)));

        assertThat(untouched(handoff, before)).containsExactly(true, false, false);
        assertThat(List.of(keysOf(turns.get(1)), keysOf(turns.get(2))))
                .containsExactlyInAnyOrder(List.of(key("p", 1)), List.of(key("q", 1)));
        assertThat(untouched(handoff, before)).as("the first, after both took their lanes")
                .containsExactly(true, false, false);
        assertThat(first).isNotDone();
    }

    @Test
    void aCollectorWokenForOneLaneDoesNotCoverTheNextCommitsOtherLane() throws Exception {
        Handoff handoff = handoff(Duration.ZERO);
        CompletableFuture<Turn> first = threeCollecting(handoff).get(0);

        List<Integer> before = looks(handoff);
        handoff.lockedDo(() -> { // two commits before the collector woken for the first can look
            handoff.offer(List.of(key("p", 1)));
            handoff.offer(List.of(key("q", 1)));
        });

        assertThat(untouched(handoff, before)).containsExactly(true, false, false);
        assertThat(first).isNotDone();
    }

    /**
     * A collector woken for a lane but interrupted before it looked (a drainer's thread stopped) returns without a
     * turn; the lane it covered gets another collector.
     */
    @Test
    void aCollectorInterruptedBeforeItLookedPassesItsLaneOn() throws Exception {
        Handoff handoff = handoff(Duration.ZERO);
        CompletableFuture<Turn> first = collecting(handoff, EVERY);
        CompletableFuture<Turn> interrupted = collecting(handoff, EVERY);
        Slot interruptedSlot = slots.get(1);

        handoff.lockedDo(() -> {
            collectors.get(1).interrupt();
            // the interrupt leaves its condition before the commit's signal can: it then throws, not looks
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (handoff.slots.waitsToBeWoken(interruptedSlot) && System.nanoTime() < until) {
                Thread.onSpinWait();
            }
            assertThat(handoff.slots.waitsToBeWoken(interruptedSlot)).as("off its condition").isFalse();
            handoff.offer(List.of(key("p", 1))); // wakes the latest collector: the interrupted one
        });

        assertThat(interrupted.get(10, TimeUnit.SECONDS)).as("no turn for the interrupted").isNull();
        assertThat(keysOf(first)).containsExactly(key("p", 1));
    }

    @Test
    void aCollectorThatMayNotTakeTheLaneIsPassedOver() throws Exception {
        Handoff handoff = handoff(Duration.ZERO);
        CompletableFuture<Turn> mayTakeP = collecting(handoff, Set.of("p", "q"));
        collecting(handoff, Set.of("q")); // began last, but p is paused in its view

        List<Integer> before = looks(handoff);
        handoff.offer(List.of(key("p", 1)));

        assertThat(untouched(handoff, before)).containsExactly(false, true);
        assertThat(keysOf(mayTakeP)).containsExactly(key("p", 1));
    }

    @Test
    void aLaneNoCollectorMayTakeWakesEveryCollector() throws Exception {
        Handoff handoff = handoff(Duration.ZERO);
        collecting(handoff, Set.of("q"));
        collecting(handoff, Set.of("q"));
        List<Integer> before = looks(handoff);

        handoff.offer(List.of(key("p", 1)));

        // each woken looks again (and waits again: p is paused in its view)
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < until && (looksOf(collectors.get(0)) == before.get(0)
                || looksOf(collectors.get(1)) == before.get(1))) {
            Thread.sleep(1);
        }
        assertThat(collectors.stream().map(this::looksOf).toList()).as("looks of each collector, before: %s", before)
                .satisfies(after -> {
                    assertThat(after.get(0)).isGreaterThan(before.get(0));
                    assertThat(after.get(1)).isGreaterThan(before.get(1));
                });
    }

    /**
     * A burst's key lingers for companions with one collector's timer on it; the next commit, into another lane,
     * wakes that same collector (it began collecting last), which takes the other lane. It wakes the collector left
     * for the lingering lane, whose own timer takes that lane once it has lingered — not at its keep-alive (an hour
     * here), and not only when the first one's turn ends (it does not end in this test).
     */
    @Test
    void aCollectorThatTakesAnotherLaneWakesOneForTheLaneItLeavesLingering() throws Exception {
        Duration linger = Duration.ofMillis(8);
        Handoff handoff = handoff(linger);
        // r was offered to just now: its next key is part of a burst and lingers
        handoff.offer(List.of(key("r", 0))).startFailed(); // its drainer is this test
        handoff.takeTurn(EVERY).end();
        CompletableFuture<Turn> first = collecting(handoff, EVERY);
        CompletableFuture<Turn> second = collecting(handoff, EVERY);

        handoff.offer(List.of(key("r", 1)));
        handoff.offer(List.of(key("p", 1))); // alone: taken at once

        List<CompletableFuture<Turn>> both = List.of(first, second);
        CompletableFuture.anyOf(first, second).get(10, TimeUnit.SECONDS);
        CompletableFuture<Turn> tookP = both.stream().filter(CompletableFuture::isDone).findFirst().orElseThrow();
        assertThat(keysOf(tookP)).containsExactly(key("p", 1));
        CompletableFuture<Turn> left = tookP == first ? second : first;
        assertThat(left).as("r still lingers").isNotDone();

        nanos.addAndGet(linger.toNanos());

        assertThat(keysOf(left)).as("r, once it has lingered").containsExactly(key("r", 1));
    }
}
