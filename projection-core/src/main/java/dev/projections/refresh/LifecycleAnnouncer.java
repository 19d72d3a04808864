package dev.projections.refresh;

import dev.projections.lifecycle.LifecycleEvent;
import dev.projections.lifecycle.LifecycleListener;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Tells the application's {@link LifecycleListener} of an event, after the commit that made it true; what the listener
 * throws is counted ({@code projection.listener.failures}) and logged — at WARNING once a minute per projection, the
 * rest at FINE, since an outage may park thousands of marks — and never reaches the engine: the change stands.
 */
public final class LifecycleAnnouncer {

    private static final Logger LOG = Logger.getLogger(LifecycleAnnouncer.class.getName());
    private static final Duration WARN_EVERY = Duration.ofMinutes(1);

    public static final LifecycleAnnouncer NONE = new LifecycleAnnouncer(LifecycleListener.NONE, new EngineStats(),
            Clock.systemUTC());

    private final LifecycleListener listener;
    private final EngineStats stats;
    private final Clock clock;
    private final Map<String, Instant> warned = new ConcurrentHashMap<>();

    public LifecycleAnnouncer(LifecycleListener listener, EngineStats stats, Clock clock) {
        this.listener = listener;
        this.stats = stats;
        this.clock = clock;
    }

    public void announce(LifecycleEvent event) {
        try {
            listener.on(event);
        } catch (RuntimeException | LinkageError | AssertionError e) {
            stats.listenerFailed(event.projection());
            Instant now = clock.instant();
            Instant last = warned.get(event.projection());
            boolean warn = last == null || !now.isBefore(last.plus(WARN_EVERY));
            if (warn) {
                warned.put(event.projection(), now);
            }
            LOG.log(warn ? Level.WARNING : Level.FINE, "an observer of " + event + " failed; the change stands ("
                    + stats.listenerFailures(event.projection()) + " listener failures of " + event.projection()
                    + " on this instance): " + FailureText.of(e), warn ? e : null);
        }
    }
}
