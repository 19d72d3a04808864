package dev.projections.bench.db;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * {@code VACUUM ANALYZE projection_pending} every {@link #EVERY} on a connection of its own while a long phase runs,
 * as autovacuum tuned for the queue would (docs/guide/operations.md: scale factors 0.01 and 0.02), and as the it-tests do. The
 * benchmark's server runs without autovacuum, and a phase that inserts and deletes a million marks would otherwise
 * pile up two million dead rows and claim from statistics of an empty table (docs/pitfalls.md #29): it would measure
 * a database nobody runs in production.
 */
public final class QueueVacuum implements AutoCloseable {

    public static final Duration EVERY = Duration.ofSeconds(5);

    private static final long SLICE_NANOS = Duration.ofMillis(20).toNanos();

    private final Thread thread;
    private final AtomicInteger vacuums = new AtomicInteger();
    private final AtomicReference<Exception> failure = new AtomicReference<>();
    private volatile boolean closed;

    private QueueVacuum(BenchDatabase database) {
        this.thread = new Thread(() -> loop(database), "queue-vacuum");
        thread.setDaemon(true);
    }

    public static QueueVacuum start(BenchDatabase database) {
        QueueVacuum vacuum = new QueueVacuum(database);
        vacuum.thread.start();
        return vacuum;
    }

    private void loop(BenchDatabase database) {
        try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
            while (true) {
                long due = System.nanoTime() + EVERY.toNanos();
                while (!closed && System.nanoTime() < due) {
                    LockSupport.parkNanos(SLICE_NANOS);
                }
                if (closed) {
                    return;
                }
                statement.execute("VACUUM ANALYZE projection_pending");
                vacuums.incrementAndGet();
            }
        } catch (Exception e) {
            failure.set(e);
        }
    }

    /** How many times it vacuumed so far. */
    public int vacuums() {
        return vacuums.get();
    }

    /** Stops after the vacuum in progress, if any; throws what made it stop early. */
    @Override
    public void close() throws InterruptedException {
        closed = true;
        thread.join(Duration.ofMinutes(5).toMillis());
        Exception e = failure.get();
        if (e != null) {
            throw new IllegalStateException("VACUUM ANALYZE projection_pending failed: " + e, e);
        }
    }
}
