package dev.projections.refresh;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.MarkKey;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class HandoffTest {

    private static MarkKey key(int i) {
        return new MarkKey("p", "", String.valueOf(i));
    }

    @Test
    void aCommitStartsADrainerOnlyWhenNoneIsAboutToRunAndEveryRunningOneWorks() {
        Handoff handoff = new Handoff(100, 3);
        Slot first = handoff.offer(List.of(key(1)));
        assertThat(first).isNotNull();
        assertThat(handoff.offer(List.of(key(2)))).as("the first, about to run, will take it").isNull();
        first.run();
        assertThat(handoff.offer(List.of(key(3)))).as("started, not yet at its first turn: it will take it").isNull();
        assertThat(first.nextTurn(false, Set.of("p")).keys()).containsExactly(key(1), key(2), key(3));
        assertThat(handoff.offer(List.of(key(4)))).as("the first works: one more").isNotNull();
        assertThat(handoff.inFlight()).isEqualTo(2);
        assertThat(handoff.waiting()).isEqualTo(1);
    }

    @Test
    void aStartedDrainerBusyBeforeItsFirstTurnLetsACommitStartAnother() {
        Handoff handoff = new Handoff(100, 3);
        Slot first = handoff.tryReserve();
        first.run();
        assertThat(handoff.offer(List.of(key(1)))).as("started: it will take it").isNull();

        first.busy(); // a purge of a cancelled run's marks, say

        assertThat(handoff.offer(List.of(key(2)))).as("busy: one more").isNotNull();
    }

    @Test
    void aKeyOfferedTwiceWaitsOnce() {
        Handoff handoff = new Handoff(100, 1);
        handoff.offer(List.of(key(1), key(2)));
        handoff.offer(List.of(key(1)));
        assertThat(handoff.take(10)).containsExactly(key(1), key(2));
    }

    @Test
    void aDrainerThatFinishesWhileKeysWaitPassesItsSlotToASuccessor() {
        Handoff handoff = new Handoff(100, 1);
        Slot slot = handoff.offer(List.of(key(1)));
        assertThat(slot.run()).isTrue();
        assertThat(handoff.take(10)).containsExactly(key(1));
        assertThat(handoff.offer(List.of(key(2)))).as("the only slot is busy").isNull();

        Slot successor = slot.finish(false, false);

        assertThat(successor).as("key 2 arrived meanwhile").isNotNull().isNotSameAs(slot);
        assertThat(handoff.inFlight()).isEqualTo(1);
        assertThat(successor.run()).isTrue();
        assertThat(handoff.take(10)).containsExactly(key(2));
        assertThat(successor.finish(false, false)).isNull();
        assertThat(handoff.inFlight()).isZero();
    }

    @Test
    void aDrainerWhoseTurnEndedWithWorkLeftPassesItsSlotOnUnlessTheEngineStops() {
        Handoff handoff = new Handoff(100, 1);
        Slot slot = handoff.tryReserve();
        slot.run();
        Slot successor = slot.finish(true, false);
        assertThat(successor).isNotNull();
        successor.run();
        assertThat(successor.finish(true, true)).as("stopping: no successor").isNull();
        assertThat(handoff.inFlight()).isZero();
    }

    @Test
    void afterBackPressureNoDrainerStartsForThePauseNotForACommitASuccessorOrTheSweep() {
        Handoff handoff = new Handoff(100, 2);
        Slot slot = handoff.tryReserve();
        slot.run();
        handoff.pressedFor(java.time.Duration.ofHours(1));
        assertThat(slot.finish(true, false)).as("no successor").isNull();
        assertThat(handoff.offer(List.of(key(1)))).as("a commit starts none").isNull();
        assertThat(handoff.waiting()).as("its keys wait").isEqualTo(1);
        assertThat(handoff.tryReserve()).as("nor the sweep").isNull();

        handoff.pressedFor(java.time.Duration.ZERO);
        assertThat(handoff.tryReserve()).as("once the pause is over").isNotNull();
    }

    @Test
    void onOverflowKeysAreDroppedAndASweepIsRequestedOnce() {
        Handoff handoff = new Handoff(2, 1);
        handoff.offer(List.of(key(1), key(2), key(3)));
        assertThat(handoff.waiting()).isEqualTo(2);
        assertThat(handoff.takeSweepRequest()).isTrue();
        assertThat(handoff.takeSweepRequest()).isFalse();
    }

    @Test
    void aBurstOfOffersNeverHasMoreDrainersInFlightThanWorkers() {
        Handoff handoff = new Handoff(50_000, 4);
        int started = 0;
        for (int i = 0; i < 10_000; i++) {
            Slot slot = handoff.offer(List.of(key(i)));
            if (slot != null) {
                slot.run(); // each drainer starts at once and is busy with its first turn
                slot.nextTurn(false, Set.of("p"));
                started++;
            }
        }
        assertThat(started).isEqualTo(4);
        assertThat(handoff.peakInFlight()).isEqualTo(4);
    }

    @Test
    void theSweepGetsASlotOnlyWhenOneIsFree() {
        Handoff handoff = new Handoff(10, 1);
        Slot slot = handoff.tryReserve();
        assertThat(slot).isNotNull();
        assertThat(handoff.tryReserve()).isNull();
        slot.startFailed();
        assertThat(handoff.tryReserve()).isNotNull();
    }

    @Test
    void aSlotWhoseDrainerNeverRanIsTakenBackAtTheSecondSweep() {
        Handoff handoff = new Handoff(10, 1);
        handoff.offer(List.of(key(1))); // the container then fails the asynchronous call
        assertThat(handoff.reclaimLostSlots()).as("first sweep: perhaps only queued").isZero();
        assertThat(handoff.reclaimLostSlots()).as("second sweep: lost").isEqualTo(1);
        assertThat(handoff.tryReserve()).isNotNull();
    }

    @Test
    void aRunningDrainersSlotIsNeverTakenBack() {
        Handoff handoff = new Handoff(10, 1);
        handoff.offer(List.of(key(1))).run();
        assertThat(handoff.reclaimLostSlots()).isZero();
        assertThat(handoff.reclaimLostSlots()).isZero();
        assertThat(handoff.inFlight()).isEqualTo(1);
    }

    @Test
    void aSlotPassingBetweenTwoDrainersAtEachOfTwoSweepsIsNotTakenBack() {
        // the sweep finds the slot between drainer 1 and 2, then between drainer 2 and 3: a different slot each time
        Handoff handoff = new Handoff(10, 1);
        Slot first = handoff.tryReserve();
        first.run();
        Slot second = first.finish(true, false);
        assertThat(handoff.reclaimLostSlots()).as("sweep 1: the successor not running yet").isZero();
        assertThat(second.run()).isTrue();
        Slot third = second.finish(true, false);
        assertThat(handoff.reclaimLostSlots()).as("sweep 2: another successor not running yet").isZero();

        assertThat(third.run()).as("the successor keeps its slot").isTrue();
        assertThat(handoff.inFlight()).isEqualTo(1);
    }

    @Test
    void aDrainerThatRunsAfterItsSlotWasTakenBackEndsWithoutExceedingTheBound() {
        Handoff handoff = new Handoff(10, 1);
        Slot lost = handoff.offer(List.of(key(1)));
        handoff.reclaimLostSlots();
        assertThat(handoff.reclaimLostSlots()).isEqualTo(1);
        Slot fresh = handoff.tryReserve();
        assertThat(fresh).as("the sweep starts a new drainer").isNotNull();
        assertThat(fresh.run()).as("the new drainer runs").isTrue();
        assertThat(lost.run()).as("the late one ends at once").isFalse();
        assertThat(handoff.inFlight()).isEqualTo(1);
    }
}
