package dev.projections.refresh;

import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The {@link Handoff}'s drainers in flight: at most {@code workers} {@link Slot slots}, what state each is in, and the
 * sweep's taking back of a slot whose drainer the container never ran. Not thread-safe on its own: every method runs
 * under the hand-off's one lock, as {@link Lanes}' do.
 */
final class Slots {

    private final Handoff handoff;
    private final int workers;
    /** The hand-off's lock: each slot's condition is one of it. */
    private final ReentrantLock lock;
    /** Collections begun, to tell the collector that began last ({@link #wakeFor}). */
    private long collections;
    private final Set<Slot> slots = new LinkedHashSet<>();
    private int peakInFlight;

    Slots(Handoff handoff, int workers, ReentrantLock lock) {
        this.handoff = handoff;
        this.workers = workers;
        this.lock = lock;
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
        Slot slot = new Slot(handoff, lock.newCondition());
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

    /** Wakes every collecting drainer: what changed may concern any of them. */
    void wakeCollectors() {
        for (Slot slot : slots) {
            if (slot.state == Slot.State.COLLECTING) {
                slot.woken.signal();
            }
        }
    }

    /**
     * Keys came into the lanes of {@code projections}: for each lane, one collecting drainer is woken, so that a commit
     * costs a wake-up per lane, not one per collector — the one that began collecting last of those that may take the
     * lane (the longest idle stay idle and end at their keep-alive). A lane that a collector woken for it and not yet
     * looking covers needs none more. When a lane has no collector left that may take it (more lanes than collectors,
     * or their pauses), or none of {@code projections} waits (other lanes may), every collector is woken, as for any
     * other change; a lane the last of them cannot take gets a helper when that one takes its turn.
     */
    void wakeFor(List<String> projections) {
        if (projections.isEmpty() || !cover(projections)) {
            wakeCollectors();
        }
    }

    /**
     * A collector took a turn (or was interrupted) while {@code waiting} lanes still wait: one wake-up per lane relies
     * on it, since the collector woken for a lane may take another (the one served least recently), and one that takes
     * a turn reserves no helper while others collect. Each lane not covered gets a collector of its own, which takes it
     * or sets its own timer for its linger. No fallback: a lane nobody may take (paused everywhere) wakes nobody.
     */
    void passOn(Slot taker, List<String> waiting) {
        taker.state = Slot.State.WORKING; // not its own successor
        cover(waiting);
    }

    /**
     * Wakes a collector for each lane of {@code projections} that no collector woken for it covers, each collector
     * counted for one lane; false when a lane had no collector left that may take it.
     */
    private boolean cover(List<String> projections) {
        Set<Slot> counted = new HashSet<>();
        boolean covered = true;
        for (String projection : projections) {
            Slot woken = latestCollector(projection, projection, counted);
            if (woken == null) {
                woken = latestCollector(projection, null, counted);
                if (woken == null) {
                    covered = false;
                    continue;
                }
                woken.toldFor = projection;
                woken.woken.signal();
            }
            counted.add(woken);
        }
        return covered;
    }

    /**
     * The collector that began collecting last, woken for {@code toldFor} ({@code null}: not woken), that may take
     * {@code projection} and is not {@code counted}.
     */
    private Slot latestCollector(String projection, String toldFor, Set<Slot> counted) {
        Slot latest = null;
        for (Slot slot : slots) {
            if (slot.state == Slot.State.COLLECTING && Objects.equals(slot.toldFor, toldFor)
                    && !counted.contains(slot) && slot.collectingFor.contains(projection)
                    && (latest == null || slot.collectingSince > latest.collectingSince)) {
                latest = slot;
            }
        }
        return latest;
    }

    /** {@code slot}'s drainer collects for {@code claimable}. */
    void beginCollecting(Slot slot, Set<String> claimable) {
        slot.state = Slot.State.COLLECTING;
        slot.collectingFor = claimable;
        slot.collectingSince = ++collections;
    }

    /** {@code slot}'s drainer stops collecting, with a turn or without. */
    void endCollecting(Slot slot) {
        slot.toldFor = null;
        slot.collectingFor = null;
        if (slot.state == Slot.State.COLLECTING) {
            slot.state = Slot.State.WORKING;
        }
    }

    /** Whether {@code slot}'s drainer waits on its condition (tests of who a commit wakes; under the lock). */
    boolean waitsToBeWoken(Slot slot) {
        return lock.hasWaiters(slot.woken);
    }

    int collecting() {
        return (int) slots.stream().filter(slot -> slot.state == Slot.State.COLLECTING).count();
    }
}
