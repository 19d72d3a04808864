package dev.projections.refresh;

import dev.projections.MarkKey;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.function.ToIntFunction;

/**
 * The bounded, coalescing set between committing threads and drainers (docs/contract.md §5, docs/design.md D41, D45).
 * A committed key waits here, in its projection's <em>lane</em>, until a drainer takes it; a key offered twice is kept
 * once. At most {@code workers} drainers are in flight, each holding a {@link Slot}: {@link #offer} and
 * {@link #tryReserve} reserve one when a drainer must start, and a drainer's slot goes reserve → {@link Slot#run run}
 * → {@link Slot#finish finish}, which releases it or passes it on to a successor when work remains. No committing
 * thread ever waits.
 * <p>
 * <b>One projection per turn.</b> A drainer works in {@link Turn turns}: each takes the keys of one projection, and
 * holds one of that projection's {@code workers} until {@link Turn#end}; which lane a turn takes, and the caps that
 * keep a slow projection from holding every drainer, are {@link Lanes}' rules. A turn of one key may carry another
 * projection's lone key as its {@link Turn#companion} (a commit that marks two projections, refreshed in one
 * transaction: docs/design.md D60), itself a turn of its projection under the same rules.
 * <p>
 * <b>Batching that follows the load.</b> A drainer between two turns <em>collects</em> ({@link Slot#nextTurn}): it
 * takes a lane at once when the lane's first waiting key came alone (nothing was offered to that lane in the quarter
 * of {@code linger} before it: a lone commit is refreshed at once), else it waits for companions until that key has
 * waited {@code linger} or a batch is full. With nothing to take it stays for {@code keepAlive}, so the next commit
 * finds it rather than a thread to start. A commit wakes one collector per lane its keys came into, the one that began
 * collecting last ({@link Slots#wakeFor}); other changes wake them all. A commit starts a drainer only when none is
 * collecting or about to run: under a stream of commits the keys that arrive while drainers work are claimed together,
 * and only as many drainers run as the load needs. A collector that takes one lane while another waits wakes another
 * collector for it ({@link Slots#passOn}), or reserves a helper when none collects ({@link Turn#helper}), so no lane's
 * keys wait for a drainer that is busy elsewhere. On overflow keys are dropped and
 * {@link #takeSweepRequest} turns true: the pending table is the source of truth, this set only a hint.
 * <p>
 * Its mechanisms share the hand-off's one lock, each in a class of its own: this class, the protocol (offer, reserve,
 * collect, finish, stop, back-pressure); {@link Lanes}, the keys and the rules that choose a lane; {@link Slots}, the
 * drainers in flight; {@link Slot} and {@link Turn}, what a drainer holds. A lane's cap and a slot's state are read together in one decision, so the lock
 * is one wall, not one per class.
 */
public final class Handoff {

    /** The most keys waiting, in all lanes: a burst of commits beyond it is left to the sweep (the table has every mark). */
    public static final int CAPACITY = 50_000;
    /**
     * How long an idle drainer stays for the next commit: a commit within a second of the last finds one collecting,
     * and its hand-off costs a condition signal instead of a drainer's start (a pool thread woken, the container's
     * call for the drainer's identity, the pauses read afresh), about 2 ms of the time to its read model in the
     * server benchmark's sparse samples (docs/BENCHMARKS.md). An undeploy does not wait for it: the engine's stop wakes
     * every collecting drainer, and it ends.
     */
    public static final Duration KEEP_ALIVE = Duration.ofSeconds(1);

    private final ReentrantLock lock = new ReentrantLock();
    private final long keepAlive;
    private final LongSupplier nanos;
    private final Lanes lanes;
    /** Package-private for the tests of who a commit wakes. */
    final Slots slots;
    private boolean sweepRequested;
    private boolean stopping;
    private long pressedUntil;

    /**
     * The engine's hand-off: {@value #CAPACITY} keys, {@code workers} slots, each projection's {@code workers} and
     * {@code batch-size}, {@code batch-linger}, {@link #KEEP_ALIVE}.
     */
    public static Handoff of(dev.projections.config.Settings settings) {
        return of(settings, KEEP_ALIVE);
    }

    /**
     * The same with another keep-alive: for an engine whose drainers run on the thread that starts them (the engine's
     * tests), where a drainer that stays for the next commit holds its caller that long.
     */
    public static Handoff of(dev.projections.config.Settings settings, Duration keepAlive) {
        Handoff handoff = new Handoff(CAPACITY, settings.workers(), settings.batchLinger(), keepAlive,
                System::nanoTime, projection -> settings.of(projection).workers(),
                projection -> settings.of(projection).batchSize());
        handoff.lanes.defaultCaps(projection -> settings.of(projection).workersByDefault());
        return handoff;
    }

    /** A hand-off whose drainers take what waits at once and never stay idle (tests of the slot protocol). */
    public Handoff(int capacity, int workers) {
        this(capacity, workers, Duration.ZERO, Duration.ZERO, System::nanoTime);
    }

    /** With every projection allowed all {@code workers} and batches of up to {@code capacity} keys. */
    public Handoff(int capacity, int workers, Duration linger, Duration keepAlive, LongSupplier nanos) {
        this(capacity, workers, linger, keepAlive, nanos, projection -> workers, projection -> capacity);
    }

    /**
     * @param linger     how long a key offered in a burst (within a quarter of it after the one before) waits for
     *                   companions at most; zero: never
     * @param keepAlive  how long a drainer with nothing to do stays for the next commit; zero: it ends at once
     * @param nanos      the time the two are measured in ({@link System#nanoTime} but in tests)
     * @param caps       each projection's cap on its drainers at once
     * @param batchSizes each projection's most keys per turn
     */
    public Handoff(int capacity, int workers, Duration linger, Duration keepAlive, LongSupplier nanos,
                   ToIntFunction<String> caps, ToIntFunction<String> batchSizes) {
        if (capacity < 1 || workers < 1) {
            throw new IllegalArgumentException("hand-off capacity and workers must be >= 1, were " + capacity + ", " + workers);
        }
        if (linger.isNegative() || keepAlive.isNegative()) {
            throw new IllegalArgumentException("hand-off linger and keep-alive must not be negative, were "
                    + linger + ", " + keepAlive);
        }
        this.keepAlive = keepAlive.toNanos();
        this.nanos = nanos;
        this.lanes = new Lanes(capacity, workers, linger.toNanos(), caps, batchSizes);
        this.slots = new Slots(this, workers, lock);
    }

    /**
     * Adds committed keys; returns the slot of a drainer to start now, or {@code null} when none must start: a
     * drainer is collecting (it is told) or about to run (it will take them), every slot is taken, or the keys' lanes
     * are at their cap (their drainers will take them).
     */
    public Slot offer(Collection<MarkKey> keys) {
        return locked(() -> {
            Lanes.Offered offered = lanes.offer(keys, nanos.getAsLong());
            sweepRequested |= offered.dropped();
            // a commit of a projection paused by the last look still starts a drainer: it may have been resumed since
            if (!offered.waiting() && !lanes.anyWaiting(null)) {
                return null;
            }
            if (slots.any(null, Slot.State.COLLECTING)) {
                slots.wakeFor(offered.waitingIn());
                return null;
            }
            return slots.anyWillTake(null) ? null : tryReserveLocked();
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
     * Records that each of {@code projections} owes a look at its due marks (a sweep, an operation or a drainer made
     * work due), and wakes the drainers collecting. True when one will take it: a drainer is collecting or about to
     * run, or every lane named is at its cap (its drainers will); false when a drainer must start.
     */
    public boolean askForDueLook(Collection<String> projections) {
        return locked(() -> {
            boolean anyOpen = lanes.askForLook(projections);
            slots.wakeCollectors();
            return !anyOpen || slots.anyWillTake(null);
        });
    }

    /**
     * Whether a lane of {@code claimable} has keys or an owed look and may have one more drainer: a drainer about to
     * end looks once more with a fresh view of the pauses (a collector's may be stale).
     */
    public boolean anyWaiting(Set<String> claimable) {
        return locked(() -> lanes.anyWaiting(claimable));
    }

    /**
     * A turn without a slot (tests, benchmarks, a drainer of {@link RefreshEngine#drain()}): the lane served least
     * recently among those with keys or a look owed, lingering or not; {@code null} when there is none.
     */
    public Turn takeTurn(Set<String> claimable) {
        return locked(() -> takeTurnLocked(null, false, claimable));
    }

    /**
     * A turn of one key and no owed look, of a projection that {@code pairs}, takes with it a companion when another
     * such lane may be served too and would otherwise wait for a drainer: none is collecting or about to run, and none
     * may start (every slot in flight, or back-pressure). The companion is one key of the same tenant, no look owed,
     * its projection pairing (docs/design.md D60). A commit that marks two projections is then one transaction, not
     * two, where drainers are scarce; where one is free the two lanes go in parallel.
     */
    public void pairLoneKeys(Predicate<String> pairs) {
        lockedDo(() -> lanes.pairLoneKeys(pairs));
    }

    /** The engine stops: collecting drainers return at once and end. */
    public void wakeAll() {
        lockedDo(() -> {
            stopping = true;
            slots.wakeCollectors();
        });
    }

    /** The time linger and keep-alive are measured in; the engine's due look measures its interval in it too. */
    long now() {
        return nanos.getAsLong();
    }

    /** {@code body} under the hand-off's lock. */
    <T> T locked(Supplier<T> body) {
        lock.lock();
        try {
            return body.get();
        } finally {
            lock.unlock();
        }
    }

    void lockedDo(Runnable body) {
        lock.lock();
        try {
            body.run();
        } finally {
            lock.unlock();
        }
    }

    /** {@link Slot#nextTurn}: collects as the class comment says. */
    Turn nextTurn(Slot slot, boolean collect, Set<String> claimable) {
        lock.lock();
        try {
            if (slot.ended || stopping) {
                return null;
            }
            if (!collect) {
                slot.state = Slot.State.WORKING;
                return takeTurnLocked(slot, false, claimable);
            }
            slots.beginCollecting(slot, claimable);
            long idleEnds = nanos.getAsLong() + keepAlive;
            try {
                while (true) {
                    if (slot.ended || stopping) {
                        return null;
                    }
                    Turn turn = takeTurnLocked(slot, true, claimable);
                    if (turn != null) {
                        slots.passOn(slot, lanes.waitingProjections());
                        return turn;
                    }
                    long now = nanos.getAsLong();
                    // lingering for companions: not idle (a lane passed over, paused or capped, waits idle)
                    long waitFor = lanes.lingerLeft(claimable, now);
                    if (waitFor == Long.MAX_VALUE) {
                        waitFor = idleEnds - now;
                        if (waitFor <= 0) {
                            return null;
                        }
                    }
                    slot.sleep(Math.max(1, waitFor));
                }
            } finally {
                slots.endCollecting(slot);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            slots.passOn(slot, lanes.waitingProjections()); // what it was woken for, or lingered on, is another's
            return null;
        } finally {
            lock.unlock();
        }
    }

    /** {@link Slot#finish}. */
    Slot finish(Slot slot, boolean moreWork, boolean engineStopping) {
        return locked(() -> {
            slots.end(slot);
            if (engineStopping || pressed()) {
                return null;
            }
            // keys that arrived while a drainer collects are its to take: no successor for them
            if (!moreWork && (!lanes.anyWaiting(null) || slots.anyWillTake(null))) {
                return null;
            }
            return slots.reserve();
        });
    }

    /** {@link Slot#startFailed}. */
    void startFailed(Slot slot) {
        lockedDo(() -> {
            slots.end(slot);
            if (lanes.waiting() > 0) {
                sweepRequested = true; // the keys offered to it: the next commit starts a drainer for them
            }
        });
    }

    /** {@link Turn#end}. */
    void turnEnded(Turn turn) {
        lockedDo(() -> {
            for (Turn ending = turn; ending != null; ending = ending.companion()) {
                if (!ending.ended) {
                    ending.ended = true;
                    lanes.turnEnded(ending.projection(), !ending.isCompanion);
                    slots.wakeCollectors(); // a drainer collecting may take this lane again
                }
            }
        });
    }

    /**
     * The turn of the lane served least recently of those {@code taker} may take ({@code collecting}: ready, else
     * waiting), with its companion when it has one ({@link #pairLoneKeys}), and with a helper reserved when another
     * lane then waits with no drainer collecting or about to run.
     */
    private Turn takeTurnLocked(Slot taker, boolean collecting, Set<String> claimable) {
        long now = nanos.getAsLong();
        Lanes.Taken taken = lanes.take(collecting, claimable, now);
        if (taken == null) {
            return null;
        }
        // a companion only where its lane would wait for a drainer: while one is collecting or may start, the two go
        // in parallel, which at light load has each read model sooner than one transaction refreshing both
        Lanes.Taken second = slots.anyWillTake(taker) || !pressed() && !slots.full() ? null
                : lanes.takeCompanion(taken, collecting, claimable, now);
        Turn companion = second == null ? null
                : new Turn(this, second.projection(), second.keys(), false, null, null, true);
        Slot helper = null;
        // a drainer without a slot (RefreshEngine.drain()) takes every lane itself before it returns: no helper
        if (taker != null && lanes.anyWaiting(claimable) && !slots.anyWillTake(taker)) {
            helper = tryReserveLocked();
        }
        return new Turn(this, taken.projection(), taken.keys(), taken.lookOwed(), helper, companion, false);
    }

    private Slot tryReserveLocked() {
        return pressed() ? null : slots.tryReserve();
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

    /** Takes up to {@code max} waiting keys of any lanes at once, as a turn never would (tests of the slot protocol). */
    public List<MarkKey> take(int max) {
        return locked(() -> lanes.take(max));
    }

    /**
     * Run by each sweep. A slot reserved for a drainer the container never ran (its asynchronous invocation
     * failed before the drainer's code, which the caller cannot see) would be held for ever: a slot that is the
     * same and still not running at two sweeps in a row is taken back. A slot only passing between two drainers
     * is a new slot each time, so it is never mistaken for a lost one. Returns how many were taken back.
     */
    public int reclaimLostSlots() {
        return locked(() -> {
            int lost = slots.reclaimLost();
            if (lost > 0 && lanes.waiting() > 0) {
                sweepRequested = true;
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
        return locked(slots::inFlight);
    }

    /** The most drainers ever in flight at once. */
    public int peakInFlight() {
        return locked(slots::peakInFlight);
    }

    public int waiting() {
        return locked(lanes::waiting);
    }

    /** How many drainers are collecting now (tests of the batching). */
    public int collecting() {
        return locked(slots::collecting);
    }

    /** How many turns of {@code projection} are open now (tests of the caps, the console). */
    public int busy(String projection) {
        return locked(() -> lanes.busy(projection));
    }
}
