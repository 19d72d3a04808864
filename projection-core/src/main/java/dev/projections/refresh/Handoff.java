package dev.projections.refresh;

import dev.projections.MarkKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;

/**
 * The bounded, coalescing set between committing threads and drainers (docs/contract.md §5, docs/design.md D41). A
 * committed key waits here until a drainer takes it; a key offered twice is kept once. At most {@code workers}
 * drainers are in flight, each holding a {@link Slot}: {@link #offer} and {@link #tryReserve} reserve one when a
 * drainer must start, and a drainer's slot goes reserve → {@link Slot#run run} → {@link Slot#finish finish}, which
 * releases it or passes it on to a successor when work remains. No committing thread ever waits.
 * <p>
 * <b>Batching that follows the load.</b> A drainer between two passes <em>collects</em> ({@link Slot#nextKeys}): it
 * takes what waits at once when the first waiting key came alone (nothing was offered in the quarter of
 * {@code linger} before it: a lone commit is refreshed at once), else it waits for companions until that key has
 * waited {@code linger} or a batch is full. With nothing waiting it stays for {@code keepAlive}, so the next commit finds it rather than a
 * thread to start. A commit starts a drainer only when none is collecting or about to run: under a stream of
 * commits the keys that arrive while drainers work are claimed together, and only as many drainers run as the load
 * needs. On overflow keys are dropped and {@link #takeSweepRequest} turns true: the pending table is the source of
 * truth, this set only a hint.
 */
public final class Handoff {

    /** The most keys waiting: a burst of commits beyond it is left to the sweep (the table has every mark). */
    public static final int CAPACITY = 50_000;
    /** How long an idle drainer stays for the next commit: far less than an undeploy may wait for it. */
    public static final Duration KEEP_ALIVE = Duration.ofMillis(50);

    private enum State { RESERVED, WORKING, COLLECTING }

    /**
     * One drainer's place among the {@code workers}. A slot is reserved before its drainer is started, runs once,
     * and ends by {@link #finish} or {@link #startFailed}; a successor gets a new slot, so a slot that is the same
     * and still not running at two sweeps is one whose drainer the container never ran.
     */
    public final class Slot {
        private State state = State.RESERVED;
        private boolean ended;
        private boolean seenIdleBySweep;
        /** A sweep or an operation asked this drainer to look at due marks ({@link #askForDueLook}). */
        private boolean dueLookAsked;

        private Slot() {
        }

        /**
         * Its drainer begins. False when the sweep took this slot back while the drainer waited in the
         * container's queue: the drainer must end at once and touch nothing, so the bound holds.
         */
        public boolean run() {
            return locked(() -> {
                if (ended) {
                    return false;
                }
                state = State.WORKING;
                return true;
            });
        }

        /**
         * The keys for this drainer's next pass, at most {@code max}. With {@code collect} false, what waits now;
         * with it true (the drainer has nothing else to do), waits as the class comment says: for a burst's
         * companions up to {@code linger}, and with nothing waiting up to {@code keepAlive}, returning an empty list
         * when none came or the engine stops ({@link #wakeAll}). Asked for a look at due marks
         * ({@link #dueLookAsked}), it returns what waits at once.
         */
        public List<MarkKey> nextKeys(int max, boolean collect) {
            lock.lock();
            try {
                if (!collect) {
                    return takeLocked(max);
                }
                state = State.COLLECTING;
                long idleEnds = nanos.getAsLong() + keepAlive;
                try {
                    while (true) {
                        long now = nanos.getAsLong();
                        if (ended || stopping) {
                            return List.of();
                        }
                        if (dueLookAsked) {
                            return takeLocked(max); // the look is the drainer's to make; what waits goes with it
                        }
                        long waitFor;
                        if (!waiting.isEmpty()) {
                            long companionsUntil = firstWaitingAt + linger;
                            if (firstCameAlone || waiting.size() >= max || now - companionsUntil >= 0) {
                                return takeLocked(max);
                            }
                            waitFor = companionsUntil - now;
                        } else {
                            waitFor = idleEnds - now;
                            if (waitFor <= 0) {
                                return List.of();
                            }
                        }
                        changed.awaitNanos(waitFor);
                    }
                } finally {
                    if (state == State.COLLECTING) {
                        state = State.WORKING;
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return List.of();
            } finally {
                lock.unlock();
            }
        }

        /**
         * True once after {@link #askForDueLook} asked this drainer, collecting or about to run, to look at due marks
         * (a sweep or an operation made work due); the drainer reads it on every pass.
         */
        public boolean dueLookAsked() {
            return locked(() -> {
                boolean asked = dueLookAsked;
                dueLookAsked = false;
                return asked;
            });
        }

        /**
         * Its drainer ends. Returns the successor's slot, already reserved, when work may remain ({@code moreWork})
         * or keys arrived after the drainer's last look; {@code null} when the slot was simply given back. While the
         * engine stops there is no successor.
         */
        public Slot finish(boolean moreWork, boolean stopping) {
            return locked(() -> {
                end();
                // keys that arrived while a drainer collects are its to take: no successor for them
                if (stopping || pressed() || (!moreWork && (waiting.isEmpty() || has(State.COLLECTING)))) {
                    return null;
                }
                return reserve();
            });
        }

        /** Its drainer could not be started (the container refused): the slot is given back. */
        public void startFailed() {
            lockedDo(() -> {
                end();
                if (!waiting.isEmpty()) {
                    sweepRequested = true; // the keys offered to it: the next commit starts a drainer for them
                }
            });
        }

        private void end() {
            if (!ended) {
                ended = true;
                slots.remove(this);
            }
        }
    }

    private final ReentrantLock lock = new ReentrantLock();
    /** Signalled when keys arrive, a due look is asked for, or the engine stops: collecting drainers look again. */
    private final Condition changed = lock.newCondition();
    private final int capacity;
    private final int workers;
    private final long linger;
    /**
     * A key offered within this time of the one before is in a burst: a quarter of the linger, so a key lingers only
     * where at least about four companions are expected to share its claim.
     */
    private final long burstGap;
    private final long keepAlive;
    private final LongSupplier nanos;
    private final Set<MarkKey> waiting = new LinkedHashSet<>();
    private final Set<Slot> slots = new LinkedHashSet<>();
    private int peakInFlight;
    private boolean sweepRequested;
    private boolean stopping;
    private long pressedUntil;
    private long lastOfferAt;
    private boolean offeredBefore;
    private long firstWaitingAt;
    private boolean firstCameAlone;

    /** The engine's hand-off: {@value #CAPACITY} keys, {@code workers} slots, {@code batch-linger}, {@link #KEEP_ALIVE}. */
    public static Handoff of(dev.projections.config.Settings settings) {
        return new Handoff(CAPACITY, settings.workers(), settings.batchLinger(), KEEP_ALIVE, System::nanoTime);
    }

    /** A hand-off whose drainers take what waits at once and never stay idle (tests of the slot protocol). */
    public Handoff(int capacity, int workers) {
        this(capacity, workers, Duration.ZERO, Duration.ZERO, System::nanoTime);
    }

    /**
     * @param linger    how long a key offered in a burst (within a quarter of it after the one before) waits for
     *                  companions at most; zero: never
     * @param keepAlive how long a drainer with nothing to do stays for the next commit; zero: it ends at once
     * @param nanos     the time the two are measured in ({@link System#nanoTime} but in tests)
     */
    public Handoff(int capacity, int workers, Duration linger, Duration keepAlive, LongSupplier nanos) {
        if (capacity < 1 || workers < 1) {
            throw new IllegalArgumentException("hand-off capacity and workers must be >= 1, were " + capacity + ", " + workers);
        }
        if (linger.isNegative() || keepAlive.isNegative()) {
            throw new IllegalArgumentException("hand-off linger and keep-alive must not be negative, were "
                    + linger + ", " + keepAlive);
        }
        this.capacity = capacity;
        this.workers = workers;
        this.linger = linger.toNanos();
        this.burstGap = this.linger / 4;
        this.keepAlive = keepAlive.toNanos();
        this.nanos = nanos;
    }

    /**
     * Adds committed keys; returns the slot of a drainer to start now, or {@code null} when none must start: a
     * drainer is collecting (it is told) or about to run (it will take them), or every slot is taken.
     */
    public Slot offer(Collection<MarkKey> keys) {
        return locked(() -> {
            long now = nanos.getAsLong();
            boolean wasEmpty = waiting.isEmpty();
            for (MarkKey key : keys) {
                if (waiting.size() >= capacity && !waiting.contains(key)) {
                    sweepRequested = true;
                    continue;
                }
                waiting.add(key);
            }
            if (wasEmpty && !waiting.isEmpty()) {
                firstWaitingAt = now;
                firstCameAlone = !offeredBefore || now - lastOfferAt >= burstGap;
            }
            if (!keys.isEmpty()) {
                offeredBefore = true;
                lastOfferAt = now;
            }
            if (waiting.isEmpty()) {
                return null;
            }
            if (has(State.COLLECTING)) {
                changed.signalAll();
                return null;
            }
            return has(State.RESERVED) ? null : tryReserveLocked();
        });
    }

    /**
     * Reserves a slot for a drainer without keys (the sweep, an operation); {@code null} when all are taken or
     * back-pressure holds drainers off.
     */
    public Slot tryReserve() {
        return locked(this::tryReserveLocked);
    }

    /**
     * Asks every drainer collecting or about to run to look at due marks on its next pass (a collecting one is woken
     * for it); false when there is none, and a drainer must start. The sweep and operations ask before starting one.
     */
    public boolean askForDueLook() {
        return locked(() -> {
            boolean asked = false;
            for (Slot slot : slots) {
                if (slot.state == State.COLLECTING || slot.state == State.RESERVED) {
                    slot.dueLookAsked = true;
                    asked = true;
                }
            }
            if (asked) {
                changed.signalAll();
            }
            return asked;
        });
    }

    /** The engine stops: collecting drainers return at once and end. */
    public void wakeAll() {
        lockedDo(() -> {
            stopping = true;
            changed.signalAll();
        });
    }

    /** The time linger and keep-alive are measured in; the engine's due look measures its interval in it too. */
    long now() {
        return nanos.getAsLong();
    }

    /** {@code body} under the hand-off's lock. */
    private <T> T locked(java.util.function.Supplier<T> body) {
        lock.lock();
        try {
            return body.get();
        } finally {
            lock.unlock();
        }
    }

    private void lockedDo(Runnable body) {
        lock.lock();
        try {
            body.run();
        } finally {
            lock.unlock();
        }
    }

    private Slot tryReserveLocked() {
        return slots.size() >= workers || pressed() ? null : reserve();
    }

    private boolean has(State state) {
        for (Slot slot : slots) {
            if (slot.state == state) {
                return true;
            }
        }
        return false;
    }

    /**
     * A drainer met back-pressure (no pooled connection or thread in time): for {@code pause} no drainer starts, not
     * for a commit, a successor or the sweep, since each would only wait for the same pool; keys keep collecting.
     */
    public void pressedFor(Duration pause) {
        lockedDo(() -> pressedUntil = nanos.getAsLong() + pause.toNanos());
    }

    private boolean pressed() {
        return pressedUntil != 0 && nanos.getAsLong() - pressedUntil < 0;
    }

    private Slot reserve() {
        Slot slot = new Slot();
        slots.add(slot);
        peakInFlight = Math.max(peakInFlight, slots.size());
        return slot;
    }

    /** Takes up to {@code max} waiting keys at once, whoever asks (tests and drainers without a slot). */
    public List<MarkKey> take(int max) {
        return locked(() -> takeLocked(max));
    }

    private List<MarkKey> takeLocked(int max) {
        List<MarkKey> taken = new ArrayList<>(Math.min(max, waiting.size()));
        Iterator<MarkKey> it = waiting.iterator();
        while (it.hasNext() && taken.size() < max) {
            taken.add(it.next());
            it.remove();
        }
        if (!waiting.isEmpty()) {
            // what is left over waited with the keys just taken: it goes with the next pass, without a new linger
            firstCameAlone = true;
        }
        return taken;
    }

    /**
     * Run by each sweep. A slot reserved for a drainer the container never ran (its asynchronous invocation
     * failed before the drainer's code, which the caller cannot see) would be held for ever: a slot that is the
     * same and still not running at two sweeps in a row is taken back. A slot only passing between two drainers
     * is a new slot each time, so it is never mistaken for a lost one. Returns how many were taken back.
     */
    public int reclaimLostSlots() {
        return locked(() -> {
            int lost = 0;
            for (Slot slot : List.copyOf(slots)) {
                if (slot.state != State.RESERVED) {
                    continue;
                }
                if (slot.seenIdleBySweep) {
                    slot.end();
                    lost++;
                    if (!waiting.isEmpty()) {
                        sweepRequested = true;
                    }
                } else {
                    slot.seenIdleBySweep = true;
                }
            }
            return lost;
        });
    }

    /** True once after keys were dropped on overflow. */
    public boolean takeSweepRequest() {
        return locked(() -> {
            boolean requested = sweepRequested;
            sweepRequested = false;
            return requested;
        });
    }

    public int inFlight() {
        return locked(() -> slots.size());
    }

    /** The most drainers ever in flight at once. */
    public int peakInFlight() {
        return locked(() -> peakInFlight);
    }

    public int waiting() {
        return locked(() -> waiting.size());
    }

    /** How many drainers are collecting now (tests of the batching). */
    public int collecting() {
        return locked(() -> (int) slots.stream().filter(slot -> slot.state == State.COLLECTING).count());
    }
}
