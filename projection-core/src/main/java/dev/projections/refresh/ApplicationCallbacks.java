package dev.projections.refresh;

import dev.projections.MarkKey;
import dev.projections.store.AckOutcome;
import dev.projections.RefreshListener;
import dev.projections.RefreshOutcome;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
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

    /**
     * A listener that throws at every refresh would write a warning per refresh: per projection, one WARNING with
     * its stack trace per interval, the rest at FINE. The counter counts each.
     */
    static final Duration WARN_EVERY = Duration.ofMinutes(1);

    private final RefreshListener listener;
    private final EngineStats stats;
    private final Clock clock;
    private final Map<String, Instant> warnedAt = new ConcurrentHashMap<>();

    ApplicationCallbacks(RefreshListener listener, EngineStats stats, Clock clock) {
        this.listener = listener;
        this.stats = stats;
        this.clock = clock;
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
        boolean warn = dueForWarning(projection, clock.instant());
        if (!warn && !LOG.isLoggable(Level.FINE)) {
            return;
        }
        String message = what + "; the outcome stands, nothing is retried or marked again ("
                + stats.listenerFailures(projection) + " such failures of " + projection + " on this instance): "
                + FailureText.of(failure);
        if (warn) {
            LOG.log(Level.WARNING, "PRJ122: " + message + " (the next ones of " + projection + " are logged at FINE for "
                    + WARN_EVERY.toSeconds() + " s)", failure);
        } else {
            LOG.log(Level.FINE, "PRJ122: " + message);
        }
    }

    /** True for the first failure of {@code projection} and for the first one {@link #WARN_EVERY} after a warning. */
    private boolean dueForWarning(String projection, Instant now) {
        Instant last = warnedAt.get(projection);
        if (last == null) {
            return warnedAt.putIfAbsent(projection, now) == null;
        }
        // one drainer wins the replace: two failing at once do not both warn
        return !now.isBefore(last.plus(WARN_EVERY)) && warnedAt.replace(projection, last, now);
    }
}
