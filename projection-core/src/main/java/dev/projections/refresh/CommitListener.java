package dev.projections.refresh;

import dev.projections.store.CommitSignals;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * An instance's ear for the other instances' commits (docs/design.md D55): on a thread of its own, it holds one
 * connection of {@code projection.listen-datasource} (never one of the engine's pool), listens on the tables' channel
 * and passes the signals other instances sent to the handler — on a processing instance the wake-up look's {@link
 * WakeUpLook#signalled}, and on any instance the read-your-writes waits, which check at once when refreshes committed
 * elsewhere. When the connection breaks (the database restarted, or killed the backend) it takes another
 * at once and then after 1, 2, 4 … up to 30 s while that fails, and each time it listens again it also has the
 * handler look (marks committed while it was deaf are due by then); the wake-up look and the sweep serve meanwhile.
 * A connection that receives nothing is checked every 10 s, every read on it bounded by 10 s, so a half-open one is
 * found within 20 s. Before it goes back to its pool the connection stops listening. An outage is logged once, and
 * once more when it listens again.
 */
public final class CommitListener implements Runnable {

    private static final Logger LOG = Logger.getLogger(CommitListener.class.getName());

    /** How long one read waits for a signal: also how soon {@link #stop} is seen. */
    static final int WAIT_MILLIS = 250;
    static final Duration CHECK_EVERY = Duration.ofSeconds(10);
    static final Duration LONGEST_PAUSE = Duration.ofSeconds(30);

    private final DataSource source;
    private final WakeUpSignals signals;
    private final Consumer<WakeUpSignals.Heard> handler;
    private volatile boolean stopped;
    private volatile boolean listening;
    private volatile Thread thread;

    /**
     * @param handler given {@link WakeUpSignals.Heard#MARKS}, {@code REBUILD} or {@code REFRESHED} for the signals of
     *                other instances each read brought (at most one of each), and {@code REBUILD} each time the
     *                listener (again) listens
     */
    public CommitListener(DataSource source, WakeUpSignals signals, Consumer<WakeUpSignals.Heard> handler) {
        this.source = source;
        this.signals = signals;
        this.handler = handler;
    }

    @Override
    public void run() {
        thread = Thread.currentThread();
        Duration pause = Duration.ZERO;
        boolean outage = false;
        while (!stopped) {
            try (Connection connection = source.getConnection()) {
                CommitSignals.Listening ears = signals.signals().listen(connection, signals.self());
                try {
                    listening = true;
                    pause = Duration.ZERO;
                    if (outage) {
                        LOG.info("projection engine: listening again for other instances' commits");
                        outage = false;
                    }
                    handle(WakeUpSignals.Heard.REBUILD); // whatever was signalled while it did not listen
                    hear(ears);
                } finally {
                    listening = false;
                    ears.stopListening();
                }
            } catch (SQLException | RuntimeException e) {
                listening = false;
                if (stopped) {
                    break;
                }
                if (!outage) {
                    LOG.log(Level.WARNING, "PRJ121: projection engine: cannot listen for other instances' commits on "
                            + signals.signals().channel() + " (" + e.getMessage() + "); it tries again, and meanwhile "
                            + "looks for their marks every projection.wake-up-interval", e);
                    outage = true;
                }
                if (!sleep(pause)) {
                    break;
                }
                pause = pause.isZero() ? Duration.ofSeconds(1)
                        : pause.multipliedBy(2).compareTo(LONGEST_PAUSE) > 0 ? LONGEST_PAUSE : pause.multipliedBy(2);
            }
        }
        listening = false;
    }

    private void hear(CommitSignals.Listening ears) throws SQLException {
        long lastHeard = System.nanoTime();
        while (!stopped) {
            List<String> payloads = ears.await(WAIT_MILLIS);
            boolean marks = false;
            boolean rebuild = false;
            boolean refreshed = false;
            for (String payload : payloads) {
                switch (signals.heard(payload)) {
                    case MARKS -> marks = true;
                    case REBUILD -> rebuild = true;
                    case REFRESHED -> refreshed = true;
                    case OWN -> { }
                }
            }
            if (refreshed) {
                handle(WakeUpSignals.Heard.REFRESHED);
            }
            if (rebuild) {
                handle(WakeUpSignals.Heard.REBUILD);
            } else if (marks) {
                handle(WakeUpSignals.Heard.MARKS);
            }
            if (!payloads.isEmpty()) {
                lastHeard = System.nanoTime();
            } else if (System.nanoTime() - lastHeard > CHECK_EVERY.toNanos()) {
                ears.check();
                lastHeard = System.nanoTime();
            }
        }
    }

    /** The handler, whose failure is its own: the listener goes on. */
    private void handle(WakeUpSignals.Heard heard) {
        try {
            handler.accept(heard);
        } catch (RuntimeException e) {
            LOG.log(Level.FINE, "projection engine: a look after a signal failed", e);
        }
    }

    private boolean sleep(Duration pause) {
        if (pause.isZero()) {
            return true;
        }
        try {
            Thread.sleep(pause.toMillis());
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Whether it listens now (tests, health). */
    public boolean listening() {
        return listening;
    }

    /** Stops it: it ends within a read's wait, at once if it pauses after a failure. */
    public void stop() {
        stopped = true;
        Thread running = thread;
        if (running != null && !listening) {
            running.interrupt();
        }
    }
}
