package dev.projections.refresh;

import dev.projections.MarkKey;
import java.util.List;

/**
 * One projection's part of a drainer's work, taken from the {@link Handoff}: its keys (at most its batch size), and
 * whether the drainer owes that projection a look at its due marks. It holds one of the projection's {@code workers}
 * until {@link #end}. A turn of one key may come with a {@link #companion}: another projection's lone key of the same
 * commit, to be refreshed in the same transaction (docs/design.md D60).
 */
public final class Turn {

    private final Handoff handoff;
    private final String projection;
    private final List<MarkKey> keys;
    private final boolean lookOwed;
    private final Slot helper;
    private final Turn companion;
    /** Whether it is another turn's companion: it holds its projection's worker, not a drainer of its own. */
    final boolean isCompanion;
    /** Guarded by the hand-off's lock. */
    boolean ended;

    Turn(Handoff handoff, String projection, List<MarkKey> keys, boolean lookOwed, Slot helper, Turn companion,
         boolean isCompanion) {
        this.handoff = handoff;
        this.isCompanion = isCompanion;
        this.projection = projection;
        this.keys = keys;
        this.lookOwed = lookOwed;
        this.helper = helper;
        this.companion = companion;
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

    /**
     * Another projection's turn of one key, of this turn's one key's tenant and owing no look, taken with it because
     * both projections' lone keys go in one transaction ({@link Handoff#pairLoneKeys}); {@code null} mostly. It holds
     * one of its projection's {@code workers} as any turn does, and ends with this one at the latest (a drainer that
     * hands its key back ends it first).
     */
    public Turn companion() {
        return companion;
    }

    /** The turn is over, and its companion's: each projection may have one more drainer again. Idempotent. */
    public void end() {
        handoff.turnEnded(this);
    }
}
