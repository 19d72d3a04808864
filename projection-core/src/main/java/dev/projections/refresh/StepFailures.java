package dev.projections.refresh;

import dev.projections.store.RebuildRun;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which failed rebuild steps fail their run (engine review E3): a step that failed for what looks transient — a
 * timeout, a lost connection, a deadlock, one of the servers' "not now" signals — is stepped again once its lease
 * lapses, until its partition failed {@value #MAX_TRANSIENT_FAILURES} times in a row on this instance; any other
 * failure fails the run at once, as it would fail again at every lease.
 */
final class StepFailures {

    /**
     * A partition whose step fails this many times in a row on this instance with what looks transient fails its run:
     * a step that times out every time (an {@code ids()} too slow for half a lease) or whose transaction the
     * projection's own code dooms ({@code RollbackException} at every commit) would keep the run RUNNING for ever,
     * blocking every other run of its projection and tenant. A step is retried once its lease lapses, so with the
     * default lease of 2 min this is about 20 minutes of failures in a row.
     */
    static final int MAX_TRANSIENT_FAILURES = 10;

    /* the servers' own back-pressure signals (IronJacamar's blocking timeout, an exhausted pool, …), none listed */
    private static final BackPressure SERVERS_NOT_NOW = new BackPressure(List.of());

    /* consecutive transient failures per run and partition on this instance; a step that commits clears its entry */
    private final Map<String, Integer> inARow = new ConcurrentHashMap<>();
    private final Duration stepTimeout;

    /** For steps whose transaction times out after {@code stepTimeout}. */
    StepFailures(Duration stepTimeout) {
        this.stepTimeout = stepTimeout;
    }

    /** {@code run}'s step committed, or failed its run for another reason: its count starts again. */
    void cleared(RebuildRun run) {
        inARow.remove(partitionOf(run));
    }

    /**
     * {@code run}'s step failed with {@code failure} after {@code elapsedNanos}: {@code null} when it is retried after
     * its lease, else the failure its run ends with.
     */
    Throwable endsRun(RebuildRun run, Throwable failure, long elapsedNanos) {
        // a step that ran for its whole transaction timeout was rolled back by the server's reaper, whatever the
        // exception says then (WildFly's is a plain SQLException, "IJ031070 … STATUS_ROLLEDBACK")
        boolean timedOut = elapsedNanos >= Duration.ofSeconds(Math.max(1, stepTimeout.toSeconds())).toNanos(); // as JTA applies it: whole seconds
        boolean notNow = timedOut || Transient.is(failure) || SERVERS_NOT_NOW.isBackPressure(failure);
        if (!notNow) {
            // a tenant scope that cannot be entered, a statement that is wrong: it would fail the same way at
            // every lease, and the run would never end nor let a new run of its projection and tenant start
            return failure;
        }
        int failures = inARow.merge(partitionOf(run), 1, Integer::sum);
        if (failures < MAX_TRANSIENT_FAILURES) {
            return null;
        }
        inARow.remove(partitionOf(run));
        return new IllegalStateException("a step of partition " + run.partition() + " failed " + failures
                + " times in a row with a failure that looked transient; the last: " + FailureText.of(failure), failure);
    }

    private static String partitionOf(RebuildRun run) {
        return run.runId() + '/' + run.partition();
    }
}
