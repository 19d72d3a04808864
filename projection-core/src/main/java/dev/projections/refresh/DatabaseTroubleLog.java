package dev.projections.refresh;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Logger;

/**
 * Database trouble seen by drainers, reported by the sweep as one WARN with a count per sweep rather than a
 * log line per key or per drainer.
 */
public final class DatabaseTroubleLog implements Sweep.Troubles {

    private static final Logger LOG = Logger.getLogger(DatabaseTroubleLog.class.getName());

    private final AtomicLong count = new AtomicLong();
    private final AtomicReference<String> last = new AtomicReference<>();

    @Override
    public void record(DatabaseTroubleException e) {
        count.incrementAndGet();
        last.set(e.getMessage());
    }

    /** Called once per sweep. */
    @Override
    public void report() {
        long seen = count.getAndSet(0);
        if (seen > 0) {
            LOG.warning("PRJ117: projection engine: " + seen + " database errors since the last sweep; last: " + last.get());
        }
    }
}
