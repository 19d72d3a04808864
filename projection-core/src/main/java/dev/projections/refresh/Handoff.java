package dev.projections.refresh;

import dev.projections.MarkKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import java.util.function.ToIntFunction;

/**
 * The bounded, coalescing set between committing threads and drainers (docs/contract.md §5, docs/design.md D41, D45).
 * A committed key waits here, in its projection's <em>lane</em>, until a drainer takes it; a key offered twice is kept
 * once. At most {@code workers} drainers are in flight, each holding a {@link Slot}: {@link #offer} and
 * {@link #tryReserve} reserve one when a drainer must start, and a drainer's slot goes reserve → {@link Slot#run run}
 * → {@link Slot#finish finish}, which releases it or passes it on to a successor when work remains. No committing
 * thread ever waits.
 * <p>
 * <b>One projection per turn.</b> A drainer works in {@link Turn turns}: each takes the keys of one projection (at most
 * its {@code batch-size}) and whether that projection owes a look at its due marks ({@link #askForDueLook}), and holds
 * one of that projection's {@code workers} until {@link Turn#end}. A lane at its cap is invisible to drainers looking
 * for a turn, and of the lanes they can serve the one served least recently goes first: a projection whose refreshes
 * are slow holds at most its cap of drainers, and the others' keys never wait behind its backlog. <b>The reserve:</b>
 * a lane capped below {@code workers} that already has a drainer takes another only while one more stays free, so
 * however many projections are slow, the last drainer is kept for a lane that has none (two capped lanes at their caps
 * could otherwise hold every drainer, and a third projection's commits wait for one of their turns to end).
 * <p>
 * <b>Batching that follows the load.</b> A drainer between two turns <em>collects</em> ({@link Slot#nextTurn}): it
 * takes a lane at once when the lane's first waiting key came alone (nothing was offered to that lane in the quarter
 * of {@code linger} before it: a lone commit is refreshed at once), else it waits for companions until that key has
 * waited {@code linger} or a batch is full. With nothing to take it stays for {@code keepAlive}, so the next commit
 * finds it rather than a thread to start. A commit starts a drainer only when none is collecting or about to run: under
 * a stream of commits the keys that arrive while drainers work are claimed together, and only as many drainers run as
 * the load needs. A collector that takes one lane while another waits for a collector reserves a helper for it
 * ({@link Turn#helper}), so no lane's keys wait for a drainer that is busy elsewhere. On overflow keys are dropped and
 * {@link #takeSweepRequest} turns true: the pending table is the source of truth, this set only a hint.
 */
public final class Handoff {

    /** The most keys waiting, in all lanes: a burst of commits beyond it is left to the sweep (the table has every mark). */
    public static final int CAPACITY = 50_000;
    /** How long an idle drainer stays for the next commit: far less than an undeploy may wait for it. */
    public static final Duration KEEP_ALIVE = Duration.ofMillis(50);

    /**
     * RESERVED: its drainer is not running yet; STARTING: running, its first turn not yet asked for; both are "about
     * to run": the drainer will take what waits. WORKING: busy with a turn (it may be for long); COLLECTING: waiting
     * in {@link Slot#nextTurn} for keys.
     */
    private enum State { RESERVED, STARTING, WORKING, COLLECTING }

    /**
     * One drainer's place among the {@code workers}. A slot is reserved before its drainer is started, runs once,
     * and ends by {@link #finish} or {@link #startFailed}; a successor gets a new slot, so a slot that is the same
     * and still not running at two sweeps is one whose drainer the container never ran.
     */
    public final class Slot {
        private State state = State.RESERVED;
        private boolean ended;
        private boolean seenIdleBySweep;

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
                // not working yet: until it asks for its first turn, keys offered now are its to take, and a commit
                // that found it here must not start one more drainer for them
                state = State.STARTING;
                return true;
            });
        }

        /**
         * Its drainer does work of its own before its first turn (a purge of a cancelled run's marks): it no longer
         * counts as about to run, so a commit meanwhile starts another drainer rather than wait for it.
         */
        public void busy() {
            lockedDo(() -> {
                if (state == State.STARTING) {
                    state = State.WORKING;
                }
            });
        }

        /**
         * This drainer's next turn, or {@code null} when there is none. With {@code collect} false, a lane it can
         * serve now (keys waiting or a look owed), lingering or not; with it true (the drainer has nothing else to
         * do), waits as the class comment says: for a burst's companions up to {@code linger}, and with nothing to
         * take up to {@code keepAlive}, returning {@code null} when nothing came or the engine stops
         * ({@link #wakeAll}). Keys of projections not {@code claimable} (paused) are dropped: their marks wait in the
         * table, and a resume asks for a look.
         */
        public Turn nextTurn(boolean collect, Set<String> claimable) {
            lock.lock();
            try {
                if (ended || stopping) {
                    return null;
                }
                if (!collect) {
                    state = State.WORKING;
                    return takeTurnLocked(this, false, claimable);
                }
                state = State.COLLECTING;
                long idleEnds = nanos.getAsLong() + keepAlive;
                try {
                    while (true) {
                        if (ended || stopping) {
                            return null;
                        }
                        Turn turn = takeTurnLocked(this, true, claimable);
                        if (turn != null) {
                            return turn;
                        }
                        long now = nanos.getAsLong();
                        long waitFor = Long.MAX_VALUE;
                        for (Lane lane : lanes.values()) {
                            // lingering for companions: not idle (a lane passed over, paused or capped, waits idle)
                            if (!lane.keys.isEmpty() && lane.open() && claimable.contains(lane.projection)) {
                                waitFor = Math.min(waitFor, lane.firstWaitingAt + linger - now);
                            }
                        }
                        if (waitFor == Long.MAX_VALUE) {
                            waitFor = idleEnds - now;
                            if (waitFor <= 0) {
                                return null;
                            }
                        }
                        changed.awaitNanos(Math.max(1, waitFor));
                    }
                } finally {
                    if (state == State.COLLECTING) {
                        state = State.WORKING;
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return null;
            } finally {
                lock.unlock();
            }
        }

        /**
         * Its drainer ends. Returns the successor's slot, already reserved, when work may remain ({@code moreWork})
         * or a lane it could serve waits with no drainer collecting or about to run; {@code null} when the slot was
         * simply given back. While the engine stops there is no successor.
         */
        public Slot finish(boolean moreWork, boolean stopping) {
            return locked(() -> {
                end();
                if (stopping || pressed()) {
                    return null;
                }
                // keys that arrived while a drainer collects are its to take: no successor for them
                if (!moreWork && (!anyLaneWaiting(null) || anyWillTake(null))) {
                    return null;
                }
                return reserve();
            });
        }

        /** Its drainer could not be started (the container refused): the slot is given back. */
        public void startFailed() {
            lockedDo(() -> {
                end();
                if (waitingCount > 0) {
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

    /**
     * One projection's part of a drainer's work: its keys (at most its batch size), and whether the drainer owes
     * that projection a look at its due marks. It holds one of the projection's {@code workers} until {@link #end}.
     */
    public final class Turn {
        private final String projection;
        private final List<MarkKey> keys;
        private final boolean lookOwed;
        private final Slot helper;
        private boolean ended;

        private Turn(String projection, List<MarkKey> keys, boolean lookOwed, Slot helper) {
            this.projection = projection;
            this.keys = keys;
            this.lookOwed = lookOwed;
            this.helper = helper;
        }

        public String projection() {
            return projection;
        }

        public List<MarkKey> keys() {
            return keys;
        }

        /** Whether a sweep, an operation or a drainer asked for a look at this projection's due marks. */
        public boolean lookOwed() {
            return lookOwed;
        }

        /**
         * A slot reserved for a drainer to start now, for a lane that waits with no drainer collecting or about to
         * run to take it; {@code null} mostly.
         */
        public Slot helper() {
            return helper;
        }

        /** The turn is over: its projection may have one more drainer again. Idempotent. */
        public void end() {
            lockedDo(() -> {
                if (!ended) {
                    ended = true;
                    lanes.get(projection).busy--;
                    busyTurns--;
                    changed.signalAll(); // a drainer collecting may take this lane again
                }
            });
        }
    }

    /** One projection's keys, and its drainers. */
    private final class Lane {
        private final String projection;
        private final int cap;
        /** Its cap is the default one (workers less one), not a value someone set. */
        private final boolean defaultCap;
        private final int batchSize;
        private final Set<MarkKey> keys = new LinkedHashSet<>();
        private long firstWaitingAt;
        private boolean firstCameAlone;
        private long lastOfferAt;
        private boolean offeredBefore;
        /** A sweep, an operation or a drainer asked for a look at this projection's due marks. */
        private boolean lookOwed;
        private int busy;
        /** When it was last given a turn, in turns taken: the least recent goes first. */
        private long lastServed;

        private Lane(String projection) {
            this.projection = projection;
            this.cap = Math.max(1, caps.applyAsInt(projection));
            this.defaultCap = defaultCaps.test(projection);
            this.batchSize = Math.max(1, batchSizes.applyAsInt(projection));
        }

        /**
         * Whether a drainer may take a turn of it now: not at its cap, and — capped below {@code workers}, with a
         * drainer already — not for the last free drainer, which is kept for a lane that has none (the reserve).
         */
        private boolean open() {
            int limit = alone() ? workers : cap;
            return busy < limit && (busy == 0 || limit >= workers || busyTurns + 1 < workers);
        }

        /**
         * Whether its cap is the default one and its projection was the only claimable one at the last turn taken (the
         * others paused or suspended): then no other lane can need a drainer, and the default cap would hold back the
         * only projection with work. A projection resumed meanwhile waits for one of its turns to end at most.
         */
        private boolean alone() {
            Set<String> claimable = lastClaimable;
            return defaultCap && claimable != null && claimable.size() == 1 && claimable.contains(projection);
        }

        /** Whether it has work a drainer could start on now, lingering or not. */
        private boolean waiting() {
            return open() && (lookOwed || !keys.isEmpty());
        }

        /** Whether a collecting drainer takes it now: a look owed, or keys past their linger or a full batch. */
        private boolean ready(long now) {
            return open() && (lookOwed || !keys.isEmpty()
                    && (firstCameAlone || keys.size() >= batchSize || now - (firstWaitingAt + linger) >= 0));
        }
    }

    private final ReentrantLock lock = new ReentrantLock();
    /** Signalled when keys arrive, a look is owed, a turn ends, or the engine stops: collecting drainers look again. */
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
    private final ToIntFunction<String> caps;
    /** Whether a projection's cap is the default one ({@link #of} reads it from the settings); none in tests. */
    private volatile java.util.function.Predicate<String> defaultCaps = projection -> false;
    private final ToIntFunction<String> batchSizes;
    private final Map<String, Lane> lanes = new LinkedHashMap<>();
    private final Set<Slot> slots = new LinkedHashSet<>();
    private int waitingCount;
    /** Turns taken and not yet ended, over every lane. */
    private int busyTurns;
    /** The projections claimable at the last turn taken; {@code null} before the first. */
    private Set<String> lastClaimable;
    private long turnsTaken;
    private int peakInFlight;
    private boolean sweepRequested;
    private boolean stopping;
    private long pressedUntil;

    /**
     * The engine's hand-off: {@value #CAPACITY} keys, {@code workers} slots, each projection's {@code workers} and
     * {@code batch-size}, {@code batch-linger}, {@link #KEEP_ALIVE}.
     */
    public static Handoff of(dev.projections.config.Settings settings) {
        Handoff handoff = new Handoff(CAPACITY, settings.workers(), settings.batchLinger(), KEEP_ALIVE,
                System::nanoTime, projection -> settings.of(projection).workers(),
                projection -> settings.of(projection).batchSize());
        handoff.defaultCaps = projection -> settings.of(projection).workersByDefault();
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
        this.capacity = capacity;
        this.workers = workers;
        this.linger = linger.toNanos();
        this.burstGap = this.linger / 4;
        this.keepAlive = keepAlive.toNanos();
        this.nanos = nanos;
        this.caps = caps;
        this.batchSizes = batchSizes;
    }

    /**
     * Adds committed keys; returns the slot of a drainer to start now, or {@code null} when none must start: a
     * drainer is collecting (it is told) or about to run (it will take them), every slot is taken, or the keys' lanes
     * are at their cap (their drainers will take them).
     */
    public Slot offer(Collection<MarkKey> keys) {
        return locked(() -> {
            long now = nanos.getAsLong();
            Set<Lane> offeredTo = new LinkedHashSet<>();
            for (MarkKey key : keys) {
                Lane lane = lane(key.projection());
                if (offeredTo.add(lane)) {
                    if (lane.keys.isEmpty()) {
                        lane.firstWaitingAt = now;
                        lane.firstCameAlone = !lane.offeredBefore || now - lane.lastOfferAt >= burstGap;
                    }
                    lane.offeredBefore = true;
                    lane.lastOfferAt = now;
                }
                if (waitingCount >= capacity && !lane.keys.contains(key)) {
                    sweepRequested = true;
                    continue;
                }
                if (lane.keys.add(key)) {
                    waitingCount++;
                }
            }
            // a commit of a projection paused by the last look still starts a drainer: it may have been resumed since
            if (offeredTo.stream().noneMatch(Lane::waiting) && !anyLaneWaiting(null)) {
                return null;
            }
            if (has(State.COLLECTING)) {
                changed.signalAll();
                return null;
            }
            return anyWillTake(null) ? null : tryReserveLocked();
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
            boolean anyOpen = false;
            for (String projection : projections) {
                Lane lane = lane(projection);
                lane.lookOwed = true;
                anyOpen |= lane.open();
            }
            changed.signalAll();
            return !anyOpen || anyWillTake(null);
        });
    }

    /**
     * Whether a lane of {@code claimable} has keys or an owed look and may have one more drainer: a drainer about to
     * end looks once more with a fresh view of the pauses (a collector's may be stale).
     */
    public boolean anyWaiting(Set<String> claimable) {
        return locked(() -> anyLaneWaiting(claimable));
    }

    /**
     * A turn without a slot (tests, benchmarks, a drainer of {@link RefreshEngine#drain()}): the lane served least
     * recently among those with keys or a look owed, lingering or not; {@code null} when there is none.
     */
    public Turn takeTurn(Set<String> claimable) {
        return locked(() -> takeTurnLocked(null, false, claimable));
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

    private Lane lane(String projection) {
        return lanes.computeIfAbsent(projection, Lane::new);
    }

    /**
     * The turn of the lane served least recently of those {@code taker} may take ({@code collecting}: ready, else
     * waiting), with a helper reserved when another lane then waits with no drainer collecting or about to run.
     */
    private Turn takeTurnLocked(Slot taker, boolean collecting, Set<String> claimable) {
        long now = nanos.getAsLong();
        lastClaimable = claimable;
        Lane chosen = null;
        for (Lane lane : lanes.values()) {
            if (!claimable.contains(lane.projection)) {
                if (!collecting) {
                    // paused (as read just now): the table keeps its marks, and the lane owes a look for when it
                    // is resumed. A collector's view may be stale after its wait, so it only passes the lane over.
                    dropKeys(lane);
                }
                continue;
            }
            boolean takeable = collecting ? lane.ready(now) : lane.waiting();
            if (takeable && (chosen == null || lane.lastServed < chosen.lastServed)) {
                chosen = lane;
            }
        }
        if (chosen == null) {
            return null;
        }
        List<MarkKey> taken = new ArrayList<>(Math.min(chosen.batchSize, chosen.keys.size()));
        Iterator<MarkKey> it = chosen.keys.iterator();
        while (it.hasNext() && taken.size() < chosen.batchSize) {
            taken.add(it.next());
            it.remove();
        }
        waitingCount -= taken.size();
        if (!chosen.keys.isEmpty()) {
            // what is left over waited with the keys just taken: it goes with the next turn, without a new linger
            chosen.firstCameAlone = true;
        }
        boolean look = chosen.lookOwed;
        chosen.lookOwed = false;
        chosen.busy++;
        busyTurns++;
        chosen.lastServed = ++turnsTaken;
        Slot helper = null;
        // a drainer without a slot (RefreshEngine.drain()) takes every lane itself before it returns: no helper
        if (taker != null && anyLaneWaiting(claimable) && !anyWillTake(taker)) {
            helper = tryReserveLocked();
        }
        return new Turn(chosen.projection, List.copyOf(taken), look, helper);
    }

    private void dropKeys(Lane lane) {
        if (!lane.keys.isEmpty()) {
            waitingCount -= lane.keys.size();
            lane.keys.clear();
            lane.lookOwed = true;
        }
    }

    /**
     * Whether a lane of {@code claimable} has work a drainer could start on now; {@code null}: of the projections
     * claimable at the last turn taken (a paused projection's owed look starts no drainer while it stays paused).
     */
    private boolean anyLaneWaiting(Set<String> claimable) {
        Set<String> among = claimable != null ? claimable : lastClaimable;
        for (Lane lane : lanes.values()) {
            if (lane.waiting() && (among == null || among.contains(lane.projection))) {
                return true;
            }
        }
        return false;
    }

    private Slot tryReserveLocked() {
        return slots.size() >= workers || pressed() ? null : reserve();
    }

    /**
     * Whether a drainer other than {@code except}'s will take what waits: it is collecting, or about to run (reserved,
     * or started and not yet at its first turn).
     */
    private boolean anyWillTake(Slot except) {
        return hasOther(except, State.COLLECTING) || hasOther(except, State.RESERVED) || hasOther(except, State.STARTING);
    }

    private boolean has(State state) {
        return hasOther(null, state);
    }

    private boolean hasOther(Slot except, State state) {
        for (Slot slot : slots) {
            if (slot != except && slot.state == state) {
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

    /** Takes up to {@code max} waiting keys of any lanes at once, as a turn never would (tests of the slot protocol). */
    public List<MarkKey> take(int max) {
        return locked(() -> {
            List<MarkKey> taken = new ArrayList<>();
            for (Lane lane : lanes.values()) {
                Iterator<MarkKey> it = lane.keys.iterator();
                while (it.hasNext() && taken.size() < max) {
                    taken.add(it.next());
                    it.remove();
                    waitingCount--;
                }
            }
            return taken;
        });
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
                    if (waitingCount > 0) {
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
        return locked(() -> waitingCount);
    }

    /** How many drainers are collecting now (tests of the batching). */
    public int collecting() {
        return locked(() -> (int) slots.stream().filter(slot -> slot.state == State.COLLECTING).count());
    }

    /** How many turns of {@code projection} are open now (tests of the caps, the console). */
    public int busy(String projection) {
        return locked(() -> lanes.containsKey(projection) ? lanes.get(projection).busy : 0);
    }
}
