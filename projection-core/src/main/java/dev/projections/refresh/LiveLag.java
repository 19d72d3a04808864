package dev.projections.refresh;

import dev.projections.store.ClaimedMark;
import dev.projections.store.PendingQueue;
import java.time.Instant;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The lag of refreshed live marks to the meter, whatever that does. Live marks only: a rebuild's marks wait behind live
 * ones by design, and their age says nothing of the read model's freshness.
 */
final class LiveLag {

    private static final Logger LOG = Logger.getLogger(LiveLag.class.getName());

    private final RefreshLag lag;

    LiveLag(RefreshLag lag) {
        this.lag = lag;
    }

    /** The refresh of {@code mark} committed at {@code committedAt}. */
    void refreshed(ClaimedMark mark, Instant committedAt) {
        if (mark.firstMarkedAt() == null || mark.priority() != PendingQueue.LIVE) {
            return;
        }
        try {
            lag.refreshed(mark.key(), mark.firstMarkedAt(), committedAt);
        } catch (RuntimeException e) {
            LOG.log(Level.FINE, "recording the lag of " + mark.key() + " failed", e);
        }
    }
}
