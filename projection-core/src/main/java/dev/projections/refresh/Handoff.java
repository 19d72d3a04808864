package dev.projections.refresh;

import dev.projections.MarkKey;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The bounded, coalescing set between committing threads and drainers (SPEC §5). A committed key waits here
 * until a drainer takes it; a key offered twice is kept once. At most {@code workers} drainers are in
 * flight: {@link #offer} answers how many new drainers the caller must start, and a drainer that runs out
 * of work hands its slot back with {@link #drainerFinished}, which answers whether a replacement is due
 * because keys arrived meanwhile. No thread ever waits for a slot. On overflow keys are dropped and
 * {@link #takeSweepRequest} turns true: the pending table is the source of truth, this set only a hint.
 */
public final class Handoff {

    private final int capacity;
    private final int workers;
    private final Set<MarkKey> waiting = new LinkedHashSet<>();
    private int inFlight;
    private int peakInFlight;
    private int running;
    private int suspectedLost;
    private int reclaimed;
    private boolean sweepRequested;

    public Handoff(int capacity, int workers) {
        if (capacity < 1 || workers < 1) {
            throw new IllegalArgumentException("hand-off capacity and workers must be >= 1, were " + capacity + ", " + workers);
        }
        this.capacity = capacity;
        this.workers = workers;
    }

    /** Adds committed keys; returns the number of drainers to start now (0 or 1). */
    public synchronized int offer(Collection<MarkKey> keys) {
        for (MarkKey key : keys) {
            if (waiting.size() >= capacity && !waiting.contains(key)) {
                sweepRequested = true;
                continue;
            }
            waiting.add(key);
        }
        return reserveSlotIfWork() ? 1 : 0;
    }

    /** Reserves a drainer slot without keys (the sweep starting one); false when all slots are taken. */
    public synchronized boolean tryReserveSlot() {
        if (inFlight >= workers) {
            return false;
        }
        inFlight++;
        peakInFlight = Math.max(peakInFlight, inFlight);
        return true;
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
     * A drainer found no more work and gives its slot back. Returns true when keys arrived after its last
     * look, in which case the slot stays reserved and the caller must start a new drainer with it.
     */
    public synchronized boolean drainerFinished() {
        if (!waiting.isEmpty()) {
            return true;
        }
        inFlight--;
        return false;
    }

    /**
     * A drainer begins to run. False for a drainer whose slot the sweep took back while it waited in the
     * container's queue: it must end at once and touch nothing, so the count of drainers stays within bound.
     */
    public synchronized boolean drainerRunning() {
        if (running >= inFlight && reclaimed > 0) {
            reclaimed--;
            return false;
        }
        running++;
        return true;
    }

    /** A running drainer is about to finish or pass its slot on ({@link #drainerFinished}). */
    public synchronized void drainerStopped() {
        running--;
    }

    /**
     * Run by each sweep. A slot reserved for a drainer the container never ran (its asynchronous invocation
     * failed before the drainer's code, which the caller cannot see) would be held for ever; slots reserved but
     * not running at two sweeps in a row are taken back. Returns how many.
     */
    public synchronized int reclaimLostSlots() {
        int notRunning = inFlight - running;
        int lost = Math.min(notRunning, suspectedLost);
        inFlight -= lost;
        reclaimed += lost;
        suspectedLost = notRunning - lost;
        return lost;
    }

    /** A drainer could not be started (the container refused): the slot is given back. */
    public synchronized void startFailed() {
        inFlight--;
    }

    /** True once after keys were dropped on overflow. */
    public synchronized boolean takeSweepRequest() {
        boolean requested = sweepRequested;
        sweepRequested = false;
        return requested;
    }

    public synchronized int inFlight() {
        return inFlight;
    }

    /** The most drainers ever in flight at once. */
    public synchronized int peakInFlight() {
        return peakInFlight;
    }

    public synchronized int waiting() {
        return waiting.size();
    }

    private boolean reserveSlotIfWork() {
        if (waiting.isEmpty() || inFlight >= workers) {
            return false;
        }
        inFlight++;
        peakInFlight = Math.max(peakInFlight, inFlight);
        return true;
    }
}
