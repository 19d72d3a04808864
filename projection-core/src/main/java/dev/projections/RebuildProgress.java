package dev.projections;

import java.time.Instant;

/**
 * A rebuild run: {@code marked} ids marked so far, {@code remaining} rebuild marks of its projection and tenant
 * still waiting, {@code ratePerSecond} ids marked per second since it started.
 */
public record RebuildProgress(String runId, String projection, String tenant, String state, long marked,
                              long remaining, double ratePerSecond, Instant startedAt, Instant finishedAt,
                              String lastError) {

    public static final String RUNNING = "RUNNING";
    public static final String FINISHED = "FINISHED";
    public static final String FAILED = "FAILED";

    public boolean finished() {
        return FINISHED.equals(state);
    }
}
