package dev.projections.refresh;

import dev.projections.MarkKey;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The bounded, coalescing set between committing threads and drainers (docs/contract.md §5). A committed key waits here
 * until a drainer takes it; a key offered twice is kept once. At most {@code workers} drainers are in flight,
 * each holding a {@link Slot}: {@link #offer} and {@link #tryReserve} reserve one when a drainer must start, and
 * a drainer's slot goes reserve → {@link Slot#run run} → {@link Slot#finish finish}, which releases it or passes
 * it on to a successor when work remains. No thread ever waits for a slot. On overflow keys are dropped and
 * {@link #takeSweepRequest} turns true: the pending table is the source of truth, this set only a hint.
 */
public final class Handoff {

    /**
     * One drainer's place among the {@code workers}. A slot is reserved before its drainer is started, runs once,
     * and ends by {@link #finish} or {@link #startFailed}; a successor gets a new slot, so a slot that is the same
     * and still not running at two sweeps is one whose drainer the container never ran.
     */
    public final class Slot {
        private boolean running;
        private boolean ended;
        private boolean seenIdleBySweep;

        private Slot() {
        }

        /**
         * Its drainer begins. False when the sweep took this slot back while the drainer waited in the
         * container's queue: the drainer must end at once and touch nothing, so the bound holds.
         */
        public boolean run() {
            synchronized (Handoff.this) {
                if (ended) {
                    return false;
                }
                running = true;
                return true;
            }
        }

        /**
         * Its drainer ends. Returns the successor's slot, already reserved, when work may remain ({@code moreWork})
         * or keys arrived after the drainer's last look; {@code null} when the slot was simply given back. While the
         * engine stops there is no successor.
         */
        public Slot finish(boolean moreWork, boolean stopping) {
            synchronized (Handoff.this) {
                end();
                if (stopping || pressed() || (!moreWork && waiting.isEmpty())) {
                    return null;
                }
                return reserve();
            }
        }

        /** Its drainer could not be started (the container refused): the slot is given back. */
        public void startFailed() {
            synchronized (Handoff.this) {
                end();
            }
        }

        private void end() {
            if (!ended) {
                ended = true;
                running = false;
                slots.remove(this);
            }
        }
    }

    private final int capacity;
    private final int workers;
    private final Set<MarkKey> waiting = new LinkedHashSet<>();
    private final Set<Slot> slots = new LinkedHashSet<>();
    private int peakInFlight;
    private boolean sweepRequested;
    private long pressedUntil;

    public Handoff(int capacity, int workers) {
        if (capacity < 1 || workers < 1) {
            throw new IllegalArgumentException("hand-off capacity and workers must be >= 1, were " + capacity + ", " + workers);
        }
        this.capacity = capacity;
        this.workers = workers;
    }

    /** Adds committed keys; returns the slot of a drainer to start now, or {@code null} when none must start. */
    public synchronized Slot offer(Collection<MarkKey> keys) {
        for (MarkKey key : keys) {
            if (waiting.size() >= capacity && !waiting.contains(key)) {
                sweepRequested = true;
                continue;
            }
            waiting.add(key);
        }
        return waiting.isEmpty() ? null : tryReserve();
    }

    /** Reserves a slot for a drainer without keys (the sweep starting one); {@code null} when all are taken. */
    public synchronized Slot tryReserve() {
        return slots.size() >= workers || pressed() ? null : reserve();
    }

    /**
     * A drainer met back-pressure (no pooled connection or thread in time): for {@code pause} no drainer starts, not
     * for a commit, a successor or the sweep, since each would only wait for the same pool; keys keep collecting.
     */
    public synchronized void pressedFor(java.time.Duration pause) {
        pressedUntil = System.nanoTime() + pause.toNanos();
    }

    private boolean pressed() {
        return pressedUntil != 0 && System.nanoTime() - pressedUntil < 0;
    }

    private Slot reserve() {
        Slot slot = new Slot();
        slots.add(slot);
        peakInFlight = Math.max(peakInFlight, slots.size());
        return slot;
    }

    /** Takes up to {@code max} waiting keys for a drainer that holds a slot. */
    public synchronized List<MarkKey> take(int max) {
        List<MarkKey> taken = new ArrayList<>(Math.min(max, waiting.size()));
        Iterator<MarkKey> it = waiting.iterator();
        while (it.hasNext() && taken.size() < max) {
            taken.add(it.next());
            it.remove();
        }
        return taken;
    }

    /**
     * Run by each sweep. A slot reserved for a drainer the container never ran (its asynchronous invocation
     * failed before the drainer's code, which the caller cannot see) would be held for ever: a slot that is the
     * same and still not running at two sweeps in a row is taken back. A slot only passing between two drainers
     * is a new slot each time, so it is never mistaken for a lost one. Returns how many were taken back.
     */
    public synchronized int reclaimLostSlots() {
        int lost = 0;
        for (Slot slot : List.copyOf(slots)) {
            if (slot.running) {
                continue;
            }
            if (slot.seenIdleBySweep) {
                slot.end();
                lost++;
            } else {
                slot.seenIdleBySweep = true;
            }
        }
        return lost;
    }

    /** True once after keys were dropped on overflow. */
    public synchronized boolean takeSweepRequest() {
        boolean requested = sweepRequested;
        sweepRequested = false;
        return requested;
    }

    public synchronized int inFlight() {
        return slots.size();
    }

    /** The most drainers ever in flight at once. */
    public synchronized int peakInFlight() {
        return peakInFlight;
    }

    public synchronized int waiting() {
        return waiting.size();
    }
}
