package dev.projections.refresh;

import dev.projections.MarkKey;
import java.util.List;

/**
 * One projection's part of a drainer's work, taken from the {@link Handoff}: its keys (at most its batch size), and
 * whether the drainer owes that projection a look at its due marks. It holds one of the projection's {@code workers}
 * until {@link #end}.
 */
public final class Turn {

    private final Handoff handoff;
    private final String projection;
    private final List<MarkKey> keys;
    private final boolean lookOwed;
    private final Slot helper;
    /** Guarded by the hand-off's lock. */
    boolean ended;

    Turn(Handoff handoff, String projection, List<MarkKey> keys, boolean lookOwed, Slot helper) {
        this.handoff = handoff;
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
     * A slot reserved for a drainer to start now, for a lane that waits with no drainer collecting or about to run to
     * take it; {@code null} mostly.
     */
    public Slot helper() {
        return helper;
    }

    /** The turn is over: its projection may have one more drainer again. Idempotent. */
    public void end() {
        handoff.turnEnded(this);
    }
}
