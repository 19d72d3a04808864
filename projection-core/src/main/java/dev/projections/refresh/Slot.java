package dev.projections.refresh;

import java.util.Set;
import java.util.concurrent.locks.Condition;

/**
 * One drainer's place among the {@code workers} of a {@link Handoff}. A slot is reserved before its drainer is
 * started, runs once, and ends by {@link #finish} or {@link #startFailed}; a successor gets a new slot, so a slot that
 * is the same and still not running at two sweeps is one whose drainer the container never ran. Its state is guarded
 * by the hand-off's one lock.
 */
public final class Slot {

    /**
     * RESERVED: its drainer is not running yet; STARTING: running, its first turn not yet asked for; both are "about
     * to run": the drainer will take what waits. WORKING: busy with a turn (it may be for long); COLLECTING: waiting
     * in {@link Slot#nextTurn} for keys.
     */
    enum State { RESERVED, STARTING, WORKING, COLLECTING }

    private final Handoff handoff;
    State state = State.RESERVED;
    boolean ended;
    boolean seenIdleBySweep;
    /** What its drainer waits on while it collects: each collector is woken on its own (Slots#wakeFor). */
    final Condition woken;
    /** While it collects: the projections it may take, and when it began, in collections begun. */
    Set<String> collectingFor;
    long collectingSince;
    /** The lane it was woken for and has not looked at yet: it covers that lane; a commit into another wakes another. */
    String toldFor;

    Slot(Handoff handoff, Condition woken) {
        this.handoff = handoff;
        this.woken = woken;
    }

    /** Its drainer waits, collecting, under the hand-off's lock: until woken or {@code nanos} have passed. */
    void sleep(long nanos) throws InterruptedException {
        woken.awaitNanos(nanos);
        toldFor = null;
    }

    /**
     * Its drainer begins. False when the sweep took this slot back while the drainer waited in the container's
     * queue: the drainer must end at once and touch nothing, so the bound holds.
     */
    public boolean run() {
        return handoff.locked(() -> {
            if (ended) {
                return false;
            }
            // not working yet: until it asks for its first turn, keys offered now are its to take, and a commit that
            // found it here must not start one more drainer for them
            state = State.STARTING;
            return true;
        });
    }

    /**
     * Its drainer does work of its own before its first turn (a purge of a cancelled run's marks): it no longer counts
     * as about to run, so a commit meanwhile starts another drainer rather than wait for it.
     */
    public void busy() {
        handoff.lockedDo(() -> {
            if (state == State.STARTING) {
                state = State.WORKING;
            }
        });
    }

    /**
     * This drainer's next turn, or {@code null} when there is none. With {@code collect} false, a lane it can serve
     * now (keys waiting or a look owed), lingering or not; with it true (the drainer has nothing else to do), it waits
     * as {@link Handoff} says: for a burst's companions up to the linger, and with nothing to take up to the
     * keep-alive, returning {@code null} when nothing came or the engine stops ({@link Handoff#wakeAll}). Keys of
     * projections not {@code claimable} (paused) are dropped: their marks wait in the table, and a resume asks for a
     * look.
     */
    public Turn nextTurn(boolean collect, Set<String> claimable) {
        return handoff.nextTurn(this, collect, claimable);
    }

    /**
     * Its drainer ends. Returns the successor's slot, already reserved, when work may remain ({@code moreWork}) or a
     * lane it could serve waits with no drainer collecting or about to run; {@code null} when the slot was simply
     * given back. While the engine stops there is no successor.
     */
    public Slot finish(boolean moreWork, boolean stopping) {
        return handoff.finish(this, moreWork, stopping);
    }

    /** Its drainer could not be started (the container refused): the slot is given back. */
    public void startFailed() {
        handoff.startFailed(this);
    }
}
