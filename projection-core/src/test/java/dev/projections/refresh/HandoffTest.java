package dev.projections.refresh;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.MarkKey;
import java.util.List;
import org.junit.jupiter.api.Test;

class HandoffTest {

    private static MarkKey key(int i) {
        return new MarkKey("p", "", String.valueOf(i));
    }

    @Test
    void theFirstOfferStartsADrainerAndLaterOnesJoinTheWaitingSetUntilAllSlotsAreTaken() {
        Handoff handoff = new Handoff(100, 2);
        assertThat(handoff.offer(List.of(key(1)))).isEqualTo(1);
        assertThat(handoff.offer(List.of(key(2)))).isEqualTo(1);
        assertThat(handoff.offer(List.of(key(3)))).as("both slots taken").isZero();
        assertThat(handoff.inFlight()).isEqualTo(2);
        assertThat(handoff.waiting()).isEqualTo(3);
    }

    @Test
    void aKeyOfferedTwiceWaitsOnce() {
        Handoff handoff = new Handoff(100, 1);
        handoff.offer(List.of(key(1), key(2)));
        handoff.offer(List.of(key(1)));
        assertThat(handoff.take(10)).containsExactly(key(1), key(2));
    }

    @Test
    void aDrainerThatFinishesWhileKeysWaitKeepsItsSlotForASuccessor() {
        Handoff handoff = new Handoff(100, 1);
        handoff.offer(List.of(key(1)));
        assertThat(handoff.take(10)).containsExactly(key(1));
        assertThat(handoff.offer(List.of(key(2)))).as("the only slot is busy").isZero();
        assertThat(handoff.drainerFinished()).as("key 2 arrived meanwhile").isTrue();
        assertThat(handoff.inFlight()).isEqualTo(1);
        assertThat(handoff.take(10)).containsExactly(key(2));
        assertThat(handoff.drainerFinished()).isFalse();
        assertThat(handoff.inFlight()).isZero();
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
            started += handoff.offer(List.of(key(i)));
        }
        assertThat(started).isEqualTo(4);
        assertThat(handoff.peakInFlight()).isEqualTo(4);
    }

    @Test
    void theSweepGetsASlotOnlyWhenOneIsFree() {
        Handoff handoff = new Handoff(10, 1);
        assertThat(handoff.tryReserveSlot()).isTrue();
        assertThat(handoff.tryReserveSlot()).isFalse();
        handoff.startFailed();
        assertThat(handoff.tryReserveSlot()).isTrue();
    }

    @Test
    void aSlotWhoseDrainerNeverRanIsTakenBackAtTheSecondSweep() {
        Handoff handoff = new Handoff(10, 1);
        handoff.offer(List.of(key(1))); // the container then fails the asynchronous call
        assertThat(handoff.reclaimLostSlots()).as("first sweep: perhaps only queued").isZero();
        assertThat(handoff.reclaimLostSlots()).as("second sweep: lost").isEqualTo(1);
        assertThat(handoff.tryReserveSlot()).isTrue();
    }

    @Test
    void aRunningDrainersSlotIsNeverTakenBack() {
        Handoff handoff = new Handoff(10, 1);
        handoff.offer(List.of(key(1)));
        handoff.drainerRunning();
        assertThat(handoff.reclaimLostSlots()).isZero();
        assertThat(handoff.reclaimLostSlots()).isZero();
        assertThat(handoff.inFlight()).isEqualTo(1);
    }

    @Test
    void aDrainerThatRunsAfterItsSlotWasTakenBackEndsWithoutExceedingTheBound() {
        Handoff handoff = new Handoff(10, 1);
        handoff.offer(List.of(key(1)));
        handoff.reclaimLostSlots();
        assertThat(handoff.reclaimLostSlots()).isEqualTo(1);
        assertThat(handoff.tryReserveSlot()).as("the sweep starts a new drainer").isTrue();
        assertThat(handoff.drainerRunning()).as("the new drainer runs").isTrue();
        assertThat(handoff.drainerRunning()).as("the late one ends at once").isFalse();
        assertThat(handoff.inFlight()).isEqualTo(1);
    }
}
