package dev.projections.refresh;

import java.time.Duration;
import java.util.function.LongSupplier;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Whether a drainer's next claim also looks for due marks it was not handed (docs/design.md D41). Under a stream of
 * commits nearly everything a drainer claims was handed to it; what else becomes due — retries, marks given back,
 * re-marks, another instance's orphans, a rebuild's marks — is rare or seconds away. So once a look came back short
 * (fewer due marks than asked: none left over), drainers leave the due claim out for {@link #INTERVAL}, and look at
 * once again after a claim came back full (a backlog), after a pass that did not refresh every mark it claimed
 * (something was given back or re-marked) and when a sweep or an operation asks. A wrong "quiet" costs a mark at
 * most the interval, never the mark: the table is the truth, and the sweep finds what is due.
 */
final class DueLook {

    /** How long a short look keeps drainers from looking again, under a steady hand-off. */
    static final Duration INTERVAL = Duration.ofMillis(200);

    private final LongSupplier nanos;
    /** Counts {@link #lookAgain}: a look that began before one cannot declare the queue quiet after it. */
    private final AtomicLong asks = new AtomicLong();
    private volatile boolean quiet;
    private volatile long quietSince;

    DueLook(LongSupplier nanos) {
        this.nanos = nanos;
    }

    /** Whether the next claim looks for due marks. */
    boolean wanted() {
        return !quiet || nanos.getAsLong() - quietSince >= INTERVAL.toNanos();
    }

    /** Taken before a look's query: what {@link #looked} compares, so a {@link #lookAgain} meanwhile wins. */
    long begin() {
        return asks.get();
    }

    /** A claim that {@link #begin began} at {@code begun} looked for {@code asked} due marks and found {@code found}. */
    synchronized void looked(long begun, int found, int asked) {
        if (found < asked && asks.get() == begun) {
            quietSince = nanos.getAsLong();
            quiet = true;
        } else {
            quiet = false;
        }
    }

    /** Something may be due that nobody handed over: the next claim looks. */
    synchronized void lookAgain() {
        asks.incrementAndGet();
        quiet = false;
    }
}
