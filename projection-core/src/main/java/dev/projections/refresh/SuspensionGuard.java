package dev.projections.refresh;

import dev.projections.MarkKey;
import dev.projections.config.Settings;
import dev.projections.lifecycle.ProjectionSuspended;
import dev.projections.store.ControlTable;
import java.time.Clock;
import java.time.Instant;
import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Suspends a projection whose refreshes fail across many keys at once (docs/contract.md §6): its fault is not the
 * keys', so instead of every key burning its attempts, the projection stops on every instance (paused, with the
 * reason, through {@code projection_control}) until a probe succeeds. An operator's pause is left alone.
 */
final class SuspensionGuard {

    static final String SYSTEM = "system";
    private static final Logger LOG = Logger.getLogger(SuspensionGuard.class.getName());

    private final ControlTable control;
    private final ShortTransactions shortTransactions;
    private final Clock clock;
    private final FailureWindow window;
    private final LifecycleAnnouncer lifecycle;

    SuspensionGuard(ControlTable control, ShortTransactions shortTransactions, Clock clock, Settings settings,
                    LifecycleAnnouncer lifecycle) {
        this.lifecycle = lifecycle;
        this.control = control;
        this.shortTransactions = shortTransactions;
        this.clock = clock;
        // each projection's own thresholds (projection.<name>.suspend-after-failing-keys, …)
        this.window = new FailureWindow(projection -> settings.of(projection).suspendAfterFailingKeys(),
                projection -> settings.of(projection).suspendFailurePercent());
    }

    void succeeded(MarkKey key) {
        window.record(key, false, clock.instant());
    }

    /**
     * Counts a failed refresh; when the window says the projection's fault is systemic, suspends it unless it is
     * paused already, and returns true either way: the caller stops refreshing its marks.
     */
    boolean failed(MarkKey key, String error) {
        Instant now = clock.instant();
        window.record(key, true, now);
        Optional<String> verdict = window.verdict(key.projection(), now);
        if (verdict.isEmpty()) {
            return false;
        }
        String reason = verdict.get() + "; last error: " + error;
        window.forget(key.projection());
        try {
            // one conditional statement: an operator's pause committed meanwhile is left as it is
            boolean suspended = shortTransactions.runOrThrow(
                    connection -> control.suspendIfRunning(connection, key.projection(), reason, SYSTEM, now));
            if (suspended) {
                LOG.warning("PRJ112: projection " + key.projection() + " suspended on every instance: " + reason
                        + "; a probe refresh will lift it once one succeeds");
                lifecycle.announce(new ProjectionSuspended(key.projection(), reason, SYSTEM, now));
            }
        } catch (Exception e) {
            LOG.log(Level.WARNING, "PRJ113: could not suspend projection " + key.projection() + " (" + reason + ")", e);
        }
        return true;
    }

    void forget(String projection) {
        window.forget(projection);
    }
}
