package dev.projections.refresh;

import dev.projections.lifecycle.LifecycleEvent;
import dev.projections.lifecycle.LifecycleListener;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Tells the application's {@link LifecycleListener} of an event, after the commit that made it true, on a thread of its
 * own: the engine's thread that committed the change (a drainer's, the sweep's, an operator's request) only queues the
 * event, so an observer that blocks or runs long delays neither the sweep nor a drainer (docs/contract.md §15). Events
 * are told one at a time in the order they were queued. What the listener throws is counted
 * ({@code projection.listener.failures}) and logged — at WARNING once a minute per projection, the rest at FINE, since
 * an outage may park thousands of marks — and never reaches the engine: the change stands. An observer so slow that
 * {@value #QUEUE_BOUND} events wait loses the next ones, counted and logged the same way, rather than holding the
 * engine's threads or its memory. At {@link #stop} what is queued is still told, for a few seconds at most.
 */
public final class LifecycleAnnouncer {

    private static final Logger LOG = Logger.getLogger(LifecycleAnnouncer.class.getName());
    /** How long a stop waits for the events queued before it to be told. */
    static final Duration STOP_WAIT = Duration.ofSeconds(5);

    /** Events waiting for a slow observer before the next ones are dropped. */
    public static final int QUEUE_BOUND = 10_000;

    public static final LifecycleAnnouncer NONE = new LifecycleAnnouncer(LifecycleListener.NONE, new EngineStats(),
            Clock.systemUTC(), null);

    private final LifecycleListener listener;
    private final EngineStats stats;
    private final Executor delivery;
    private final BlockingQueue<LifecycleEvent> waiting = new ArrayBlockingQueue<>(QUEUE_BOUND);
    private final WarningThrottle warnings;
    private boolean delivering; // the loop runs or was handed to the executor; guarded by this
    private boolean stopping; // guarded by this
    private boolean stopped; // guarded by this

    /**
     * @param delivery runs the one loop that tells the events (in a server, a thread of the container's managed thread
     *                 factory, started with the deployment so it carries the container's context, not a caller's);
     *                 {@code null} tells each on the announcing thread (tests of the listener alone)
     */
    public LifecycleAnnouncer(LifecycleListener listener, EngineStats stats, Clock clock, Executor delivery) {
        this.listener = listener;
        this.stats = stats;
        this.warnings = new WarningThrottle(clock);
        this.delivery = delivery;
    }

    /** Queues {@code event} for the listener and returns at once; never throws. */
    public void announce(LifecycleEvent event) {
        if (delivery == null) {
            tell(event);
            return;
        }
        if (!started()) {
            LOG.info(() -> "projection engine stopped: " + event + " is not told");
            return;
        }
        if (!waiting.offer(event)) {
            failed(event, "an observer of " + event + " was not told: " + QUEUE_BOUND
                    + " events wait for the observers, which are too slow", null);
        }
    }

    /**
     * Tells what is queued, for {@link #STOP_WAIT} at most, then ends the loop; events announced from now on are not
     * told (the deployment is going away), nor those still queued at the deadline — both logged.
     */
    public void stop() {
        synchronized (this) {
            if (stopping) {
                return;
            }
            stopping = true;
            notifyAll();
        }
        long until = System.nanoTime() + STOP_WAIT.toNanos();
        synchronized (this) {
            while (delivering && System.nanoTime() < until) {
                try {
                    wait(Math.max(1, (until - System.nanoTime()) / 1_000_000));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
            stopped = true;
        }
        int left = waiting.size();
        waiting.clear();
        if (left > 0) {
            LOG.warning("PRJ118: projection engine stopped: " + left + " lifecycle events were not told to their observers "
                    + "within " + STOP_WAIT.toSeconds() + " s");
        }
    }

    private synchronized boolean started() {
        if (stopping) {
            return false;
        }
        if (!delivering) {
            try {
                delivery.execute(this::deliver);
                delivering = true;
            } catch (RuntimeException refused) { // a container's executor or thread factory that is stopping
                LOG.log(Level.WARNING, "PRJ119: projection engine: the lifecycle thread could not be started; events are not "
                        + "told", refused);
                return false;
            }
        }
        return true;
    }

    /** The loop: ends once stopping and nothing is queued, or when it is interrupted. */
    private void deliver() {
        try {
            while (true) {
                LifecycleEvent event = waiting.poll(100, TimeUnit.MILLISECONDS);
                if (event != null) {
                    tell(event);
                } else if (isStopping()) {
                    return;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // the executor is shutting down
        } finally {
            synchronized (this) {
                delivering = false; // an Error that ended the loop: the next event starts it again
                notifyAll();
            }
        }
    }

    private synchronized boolean isStopping() {
        return stopping;
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
        boolean warn = warnings.dueForWarning(event.projection());
        LOG.log(warn ? Level.WARNING : Level.FINE, "PRJ120: " + what + " (" + stats.listenerFailures(event.projection())
                + " listener failures of " + event.projection() + " on this instance)"
                + (e == null ? "" : ": " + FailureText.of(e)), warn ? e : null);
    }
}
