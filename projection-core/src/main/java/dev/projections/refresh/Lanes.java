package dev.projections.refresh;

import dev.projections.MarkKey;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.function.ToIntFunction;

/**
 * The {@link Handoff}'s keys, one lane per projection, and the rules that choose a lane for a turn: caps, the reserve,
 * the least recently served first, and lingering for a burst's companions (docs/design.md D41, D45).
 * <p>
 * <b>One projection per turn.</b> A drainer works in {@link Turn turns}: each takes the keys of one projection (at most
 * its {@code batch-size}) and whether that projection owes a look at its due marks ({@link Handoff#askForDueLook}),
 * and holds one of that projection's {@code workers} until {@link Turn#end}; a companion ({@link #takeCompanion},
 * docs/design.md D60) is such a turn too, held by the drainer of the turn it goes with. A lane at its cap is invisible
 * to drainers looking for a turn, and of the lanes they can serve the one served least recently goes first: a
 * projection whose refreshes are slow holds at most its cap of drainers, and the others' keys never wait behind its
 * backlog. <b>The reserve:</b> a lane capped below {@code workers} that already has a drainer takes another only while
 * one more drainer stays free (a companion takes none), so
 * however many projections are slow, the last drainer is kept for a lane that has none (two capped lanes at their caps
 * could otherwise hold every drainer, and a third projection's commits wait for one of their turns to end).
 * <p>
 * Not thread-safe on its own: every method runs under the hand-off's one lock, which guards the slots too — a lane's
 * cap and a slot's state are read together in one decision, so the two must never be guarded apart.
 */
final class Lanes {

    /** What a turn takes from a lane: at most its batch of keys, and whether a look at its due marks was owed. */
    record Taken(String projection, List<MarkKey> keys, boolean lookOwed) {
    }

    /**
     * What an offer did: whether keys were dropped on overflow, and the projections offered to whose lanes may be
     * served now ({@code waitingIn}).
     */
    record Offered(boolean dropped, List<String> waitingIn) {
        boolean waiting() {
            return !waitingIn.isEmpty();
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

    private final int capacity;
    private final int workers;
    private final long linger;
    /**
     * A key offered within this time of the one before is in a burst: a quarter of the linger, so a key lingers only
     * where at least about four companions are expected to share its claim.
     */
    private final long burstGap;
    private final ToIntFunction<String> caps;
    private final ToIntFunction<String> batchSizes;
    /** Whether a projection's lone key may share a transaction with another's ({@link Handoff#pairLoneKeys}). */
    private Predicate<String> pairs = projection -> false;
    /** Whether a projection's cap is the default one ({@link Handoff#of} reads it from the settings); none in tests. */
    private Predicate<String> defaultCaps = projection -> false;
    private final Map<String, Lane> lanes = new LinkedHashMap<>();
    private int waitingCount;
    /** Turns taken and not yet ended, over every lane, companions left out: the drainers busy with a turn. */
    private int busyTurns;
    /** The projections claimable at the last turn taken; {@code null} before the first. */
    private Set<String> lastClaimable;
    private long turnsTaken;

    Lanes(int capacity, int workers, long lingerNanos, ToIntFunction<String> caps, ToIntFunction<String> batchSizes) {
        this.capacity = capacity;
        this.workers = workers;
        this.linger = lingerNanos;
        this.burstGap = lingerNanos / 4;
        this.caps = caps;
        this.batchSizes = batchSizes;
    }

    void defaultCaps(Predicate<String> defaultCaps) {
        this.defaultCaps = defaultCaps;
    }

    void pairLoneKeys(Predicate<String> pairs) {
        this.pairs = pairs;
    }

    /** Adds committed keys at {@code now}; past the capacity a key not waiting already is dropped. */
    Offered offer(Collection<MarkKey> keys, long now) {
        boolean dropped = false;
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
                dropped = true;
                continue;
            }
            if (lane.keys.add(key)) {
                waitingCount++;
            }
        }
        return new Offered(dropped, offeredTo.stream().filter(Lane::waiting).map(lane -> lane.projection).toList());
    }

    /** Each of {@code projections} owes a look at its due marks; true when one of them may have one more drainer. */
    boolean askForLook(Collection<String> projections) {
        boolean anyOpen = false;
        for (String projection : projections) {
            Lane lane = lane(projection);
            lane.lookOwed = true;
            anyOpen |= lane.open();
        }
        return anyOpen;
    }

    /**
     * The turn of the lane served least recently of those a drainer may take ({@code collecting}: ready, else
     * waiting), or {@code null}. Keys of lanes not {@code claimable} are dropped by a drainer that is not collecting.
     */
    Taken take(boolean collecting, Set<String> claimable, long now) {
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
        return chosen == null ? null : takeFrom(chosen, true);
    }

    /**
     * A companion for {@code taken}, when it is a turn of one key owing no look of a projection that pairs
     * (docs/design.md D60): the turn of the lane served least recently, other than its own, that a drainer may take
     * ({@code collecting}: ready, else waiting) and holds exactly one key, of the same tenant, with no look owed, of a
     * projection that pairs; or {@code null}. A pairing rule that throws pairs nothing ({@code taken} is counted
     * already: it must be returned, alone).
     */
    Taken takeCompanion(Taken taken, boolean collecting, Set<String> claimable, long now) {
        try {
            return taken.keys().size() == 1 && !taken.lookOwed() && pairs.test(taken.projection())
                    ? takeCompanion(taken.keys().get(0), collecting, claimable, now) : null;
        } catch (RuntimeException e) {
            return null;
        }
    }

    private Taken takeCompanion(MarkKey first, boolean collecting, Set<String> claimable, long now) {
        Lane chosen = null;
        for (Lane lane : lanes.values()) {
            if (lane.projection.equals(first.projection()) || lane.keys.size() != 1 || lane.lookOwed
                    || !claimable.contains(lane.projection) || !(collecting ? lane.ready(now) : lane.waiting())
                    || !lane.keys.iterator().next().tenantId().equals(first.tenantId())
                    || chosen != null && lane.lastServed >= chosen.lastServed || !pairs.test(lane.projection)) {
                continue;
            }
            chosen = lane;
        }
        return chosen == null ? null : takeFrom(chosen, false);
    }

    /**
     * A turn of {@code chosen}: at most its batch of keys, its owed look; it is served now. A companion holds one of its
     * projection's drainers but no drainer of its own ({@code ownDrainer} false): the reserve counts drainers.
     */
    private Taken takeFrom(Lane chosen, boolean ownDrainer) {
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
        if (ownDrainer) {
            busyTurns++;
        }
        chosen.lastServed = ++turnsTaken;
        return new Taken(chosen.projection, List.copyOf(taken), look);
    }

    /** A turn of {@code projection} ended (a companion's: not {@code ownDrainer}): it may have one more drainer again. */
    void turnEnded(String projection, boolean ownDrainer) {
        lanes.get(projection).busy--;
        if (ownDrainer) {
            busyTurns--;
        }
    }

    /** The projections whose lanes have work a drainer could start on now, lingering or not. */
    List<String> waitingProjections() {
        return lanes.values().stream().filter(Lane::waiting).map(lane -> lane.projection).toList();
    }

    /**
     * Whether a lane of {@code claimable} has work a drainer could start on now; {@code null}: of the projections
     * claimable at the last turn taken (a paused projection's owed look starts no drainer while it stays paused).
     */
    boolean anyWaiting(Set<String> claimable) {
        Set<String> among = claimable != null ? claimable : lastClaimable;
        for (Lane lane : lanes.values()) {
            if (lane.waiting() && (among == null || among.contains(lane.projection))) {
                return true;
            }
        }
        return false;
    }

    /**
     * How long until the first key of a lane a collector could serve has lingered enough, or {@link Long#MAX_VALUE}
     * when none lingers (a lane passed over, paused or capped, waits idle).
     */
    long lingerLeft(Set<String> claimable, long now) {
        long waitFor = Long.MAX_VALUE;
        for (Lane lane : lanes.values()) {
            if (!lane.keys.isEmpty() && lane.open() && claimable.contains(lane.projection)) {
                waitFor = Math.min(waitFor, lane.firstWaitingAt + linger - now);
            }
        }
        return waitFor;
    }

    /** Takes up to {@code max} waiting keys of any lanes at once, as a turn never would (tests of the slot protocol). */
    List<MarkKey> take(int max) {
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
    }

    int waiting() {
        return waitingCount;
    }

    int busy(String projection) {
        return lanes.containsKey(projection) ? lanes.get(projection).busy : 0;
    }

    private Lane lane(String projection) {
        return lanes.computeIfAbsent(projection, Lane::new);
    }

    private void dropKeys(Lane lane) {
        if (!lane.keys.isEmpty()) {
            waitingCount -= lane.keys.size();
            lane.keys.clear();
            lane.lookOwed = true;
        }
    }
}
