package dev.projections.refresh;

import dev.projections.MarkKey;
import dev.projections.store.AckOutcome;
import dev.projections.RefreshListener;
import dev.projections.RefreshOutcome;
import java.time.Clock;
import java.time.Duration;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The application's code that runs once a refresh's outcome is settled — its {@link RefreshListener}, the close of
 * its {@code TenantScope} after the commit — guarded (docs/contract.md §6): what it throws is logged, counted in
 * {@link EngineStats#listenerFailures} and changes nothing. Treated as the refresh's failure it would mark the acked
 * key again for ever, count towards suspension, keep a probe from lifting one, stop every drainer when it looks like
 * back-pressure, and end the drainer when it came from the report of a failure.
 */
final class ApplicationCallbacks {

    private static final Logger LOG = Logger.getLogger(ApplicationCallbacks.class.getName());

    private final RefreshListener listener;
    private final EngineStats stats;
    private final WarningThrottle warnings;

    ApplicationCallbacks(RefreshListener listener, EngineStats stats, Clock clock) {
        this.listener = listener;
        this.stats = stats;
        this.warnings = new WarningThrottle(clock);
    }

    /** Tells the listener of {@code key}'s refresh, acked as {@code ack}; never throws what the listener threw. */
    void refreshed(MarkKey key, AckOutcome ack, Duration took) {
        refreshed(key, ack == AckOutcome.SUCCESS ? RefreshOutcome.SUCCESS : RefreshOutcome.REPEATED, took);
    }

    /** Tells the listener of {@code key}'s outcome; never throws what the listener threw. */
    void refreshed(MarkKey key, RefreshOutcome outcome, Duration took) {
        try {
            listener.refreshed(key, outcome, took);
        } catch (RuntimeException | LinkageError | AssertionError e) {
            failed(key.projection(), "RefreshListener failed on " + key + " (outcome " + outcome.tag() + ")", e);
        }
    }

    /** The tenant scope of {@code key}'s committed refresh threw when it closed. */
    void scopeCloseFailed(MarkKey key, Throwable failure) {
        failed(key.projection(), "TenantScope close failed after the refresh of " + key + " committed", failure);
    }

    /** The same for a group refreshed together: {@code first} and the {@code size - 1} after it in key order. */
    void scopeCloseFailed(MarkKey first, int size, Throwable failure) {
        failed(first.projection(), "TenantScope close failed after the refresh of " + size + " marks from " + first
                + " committed", failure);
    }

    private void failed(String projection, String what, Throwable failure) {
        stats.listenerFailed(projection);
        boolean warn = warnings.dueForWarning(projection);
        if (!warn && !LOG.isLoggable(Level.FINE)) {
            return;
        }
        String message = what + "; the outcome stands, nothing is retried or marked again ("
                + stats.listenerFailures(projection) + " such failures of " + projection + " on this instance): "
                + FailureText.of(failure);
        if (warn) {
            LOG.log(Level.WARNING, "PRJ122: " + message + " (the next ones of " + projection + " are logged at FINE for "
                    + WarningThrottle.EVERY.toSeconds() + " s)", failure);
        } else {
            LOG.log(Level.FINE, "PRJ122: " + message);
        }
    }
}
