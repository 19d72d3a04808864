package dev.projections.refresh;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The {@link Handoff}'s drainers in flight: at most {@code workers} {@link Slot slots}, what state each is in, and the
 * sweep's taking back of a slot whose drainer the container never ran. Not thread-safe on its own: every method runs
 * under the hand-off's one lock, as {@link Lanes}' do.
 */
final class Slots {

    private final Handoff handoff;
    private final int workers;
    private final Set<Slot> slots = new LinkedHashSet<>();
    private int peakInFlight;

    Slots(Handoff handoff, int workers) {
        this.handoff = handoff;
        this.workers = workers;
    }

    /** A new slot when fewer than {@code workers} are in flight, else {@code null}. */
    Slot tryReserve() {
        return full() ? null : reserve();
    }

    /** Whether {@code workers} slots are in flight: no drainer may start. */
    boolean full() {
        return slots.size() >= workers;
    }

    Slot reserve() {
        Slot slot = new Slot(handoff);
        slots.add(slot);
        peakInFlight = Math.max(peakInFlight, slots.size());
        return slot;
    }

    void end(Slot slot) {
        if (!slot.ended) {
            slot.ended = true;
            slots.remove(slot);
        }
    }

    /**
     * Whether a drainer other than {@code except}'s will take what waits: it is collecting, or about to run (reserved,
     * or started and not yet at its first turn).
     */
    boolean anyWillTake(Slot except) {
        return any(except, Slot.State.COLLECTING) || any(except, Slot.State.RESERVED)
                || any(except, Slot.State.STARTING);
    }

    /** Whether a slot other than {@code except} ({@code null}: none) is in {@code state}. */
    boolean any(Slot except, Slot.State state) {
        for (Slot slot : slots) {
            if (slot != except && slot.state == state) {
                return true;
            }
        }
        return false;
    }

    /**
     * A slot that is the same and still reserved, not running, at two calls in a row is ended; returns how many.
     * A slot only passing between two drainers is a new slot each time, so it is never mistaken for a lost one.
     */
    int reclaimLost() {
        int lost = 0;
        for (Slot slot : List.copyOf(slots)) {
            if (slot.state != Slot.State.RESERVED) {
                continue;
            }
            if (slot.seenIdleBySweep) {
                end(slot);
                lost++;
            } else {
                slot.seenIdleBySweep = true;
            }
        }
        return lost;
    }

    int inFlight() {
        return slots.size();
    }

    int peakInFlight() {
        return peakInFlight;
    }

    int collecting() {
        return (int) slots.stream().filter(slot -> slot.state == Slot.State.COLLECTING).count();
    }
}
