package dev.projections.refresh;

import dev.projections.lifecycle.LifecycleEvent;
import dev.projections.lifecycle.LifecycleListener;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadFactory;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Tells the application's {@link LifecycleListener} of an event, after the commit that made it true, on a thread of its
 * own: the engine's thread that committed the change (a drainer's, the sweep's, an operator's request) only queues the
 * event, so an observer that blocks or runs long delays neither the sweep nor a drainer (docs/contract.md §6). Events
 * are told one at a time in the order they were announced. What the listener throws is counted
 * ({@code projection.listener.failures}) and logged — at WARNING once a minute per projection, the rest at FINE, since
 * an outage may park thousands of marks — and never reaches the engine: the change stands. An observer so slow that
 * {@value #QUEUE_BOUND} events wait loses the next ones, counted and logged the same way, rather than holding the
 * engine's threads or its memory.
 */
public final class LifecycleAnnouncer {

    private static final Logger LOG = Logger.getLogger(LifecycleAnnouncer.class.getName());
    private static final Duration WARN_EVERY = Duration.ofMinutes(1);

    /** Events waiting for a slow observer before the next ones are dropped. */
    public static final int QUEUE_BOUND = 10_000;

    public static final LifecycleAnnouncer NONE = new LifecycleAnnouncer(LifecycleListener.NONE, new EngineStats(),
            Clock.systemUTC(), null);

    private final LifecycleListener listener;
    private final EngineStats stats;
    private final Clock clock;
    private final ThreadFactory threads;
    private final BlockingQueue<LifecycleEvent> waiting = new ArrayBlockingQueue<>(QUEUE_BOUND);
    private final Map<String, Instant> warned = new ConcurrentHashMap<>();
    private Thread delivery; // started at the first event, guarded by this
    private boolean stopped; // guarded by this

    /**
     * @param threads makes the one thread events are told on (in a server, the container's managed thread factory);
     *                {@code null} tells each on the announcing thread (tests of the listener alone)
     */
    public LifecycleAnnouncer(LifecycleListener listener, EngineStats stats, Clock clock, ThreadFactory threads) {
        this.listener = listener;
        this.stats = stats;
        this.clock = clock;
        this.threads = threads;
    }

    /** Queues {@code event} for the listener and returns at once; never throws. */
    public void announce(LifecycleEvent event) {
        if (threads == null) {
            tell(event);
            return;
        }
        if (!started()) {
            LOG.fine(() -> "projection engine stopped: " + event + " is not told");
            return;
        }
        if (!waiting.offer(event)) {
            failed(event, "an observer of " + event + " was not told: " + QUEUE_BOUND
                    + " events wait for the observers, which are too slow", null);
        }
    }

    /** Ends the delivery thread; events still queued are not told (the deployment is going away). */
    public void stop() {
        Thread thread;
        synchronized (this) {
            stopped = true;
            thread = delivery;
        }
        if (thread != null) {
            thread.interrupt();
        }
        int left = waiting.size();
        waiting.clear();
        if (left > 0) {
            LOG.info("projection engine stopped: " + left + " lifecycle events were not told to their observers");
        }
    }

    private synchronized boolean started() {
        if (stopped) {
            return false;
        }
        if (delivery == null) {
            delivery = threads.newThread(this::deliver);
            if (delivery == null) { // a managed thread factory that is shutting down
                stopped = true;
                return false;
            }
            delivery.setName("projection-lifecycle");
            delivery.start();
        }
        return true;
    }

    private void deliver() {
        try {
            while (!Thread.currentThread().isInterrupted()) {
                tell(waiting.take());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // stopped
        }
    }

    private void tell(LifecycleEvent event) {
        try {
            listener.on(event);
        } catch (RuntimeException | LinkageError | AssertionError e) {
            failed(event, "an observer of " + event + " failed; the change stands", e);
        }
    }

    private void failed(LifecycleEvent event, String what, Throwable e) {
        stats.listenerFailed(event.projection());
        Instant now = clock.instant();
        Instant last = warned.get(event.projection());
        boolean warn = last == null || !now.isBefore(last.plus(WARN_EVERY));
        if (warn) {
            warned.put(event.projection(), now);
        }
        LOG.log(warn ? Level.WARNING : Level.FINE, what + " (" + stats.listenerFailures(event.projection())
                + " listener failures of " + event.projection() + " on this instance)"
                + (e == null ? "" : ": " + FailureText.of(e)), warn ? e : null);
    }
}
