package dev.projections;

import java.time.Instant;

/**
 * A rebuild run: {@code marked} ids marked so far, {@code remaining} rebuild marks of its projection and tenant
 * still waiting (failing ones included), {@code failing} those of them whose refresh failed (counted once the run
 * ended {@link #FINISHED_FAILING}, 0 before),
 * {@code ratePerSecond} ids marked per second since it started. A run whose ids were all marked ends
 * {@link #FINISHED} when no rebuild mark is left, or {@link #FINISHED_FAILING} when only failing ones are: they
 * stay as failing marks to retry, and never keep the run (or the next one) open.
 */
public record RebuildProgress(String runId, String projection, String tenant, String state, long marked,
                              long remaining, long failing, double ratePerSecond, Instant startedAt,
                              Instant finishedAt, String lastError) {

    public static final String RUNNING = "RUNNING";
    public static final String FINISHED = "FINISHED";
    /** Finished with {@link #failing} rebuild marks left: "finished, N failing". */
    public static final String FINISHED_FAILING = "FINISHED_FAILING";
    public static final String FAILED = "FAILED";

    /** Every id was marked and refreshed, or is left failing ({@link #FINISHED_FAILING}). */
    public boolean finished() {
        return FINISHED.equals(state) || FINISHED_FAILING.equals(state);
    }
}
