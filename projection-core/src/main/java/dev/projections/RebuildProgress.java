package dev.projections;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A rebuild run: {@code marked} ids marked so far, {@code remaining} rebuild marks of its projection and tenant
 * still waiting (failing ones included; counted while it runs or when it ended {@link #FINISHED_FAILING}, 0 after any
 * other end), {@code failing} those of them whose refresh failed (counted once the run ended
 * {@link #FINISHED_FAILING}, 0 before), {@code ratePerSecond} ids marked per second since it started. A run whose
 * ids were all marked ends {@link #FINISHED} when no rebuild mark is left, or {@link #FINISHED_FAILING} when only
 * failing ones are: they stay as failing marks to retry, and never keep the run (or the next one) open. A run may
 * be {@link #CANCELLED} (by {@code cancelledBy}) or end {@link #FAILED} when a step failed for good (its ids could not
 * be listed, its tenant scope not entered; {@code lastError} says why).
 * {@code scope} says which ids it marks, {@code partitions} how many cursors step it in parallel, of which
 * {@code partitionsDone} have marked all theirs; {@code takeovers} counts the steps another instance took over after
 * the previous owner's lease lapsed.
 */
public record RebuildProgress(String runId, String projection, String tenant, String state, long marked,
                              long remaining, long failing, double ratePerSecond, Instant startedAt,
                              Instant finishedAt, String lastError, RebuildScope scope, int partitions,
                              int partitionsDone, String startedBy, String cancelledBy, int takeovers,
                              String kind, long checked) {

    /** A run that marks every id of its scope. */
    public static final String REBUILD = "REBUILD";
    /**
     * A verification (docs/design.md D57): it checks every id of its scope ({@code checked} so far) with the
     * projection's {@link Verifiable#drifted} and marks only those that drifted ({@code marked}); the ordinary refresh
     * repairs them, and {@link #repaired()} of them are repaired so far.
     */
    public static final String VERIFY = "VERIFY";

    /** A rebuild run, as before verifications existed: every id it checked, it marked. */
    public RebuildProgress(String runId, String projection, String tenant, String state, long marked, long remaining,
                           long failing, double ratePerSecond, Instant startedAt, Instant finishedAt, String lastError,
                           RebuildScope scope, int partitions, int partitionsDone, String startedBy, String cancelledBy,
                           int takeovers) {
        this(runId, projection, tenant, state, marked, remaining, failing, ratePerSecond, startedAt, finishedAt,
                lastError, scope, partitions, partitionsDone, startedBy, cancelledBy, takeovers, REBUILD, marked);
    }

    public static final String RUNNING = "RUNNING";
    public static final String FINISHED = "FINISHED";
    /** Finished with {@link #failing} rebuild marks left: "finished, N failing". */
    public static final String FINISHED_FAILING = "FINISHED_FAILING";
    public static final String FAILED = "FAILED";
    /** Stopped by an operator: its rebuild marks were deleted, marks of live changes stayed. */
    public static final String CANCELLED = "CANCELLED";

    /** A whole, unpartitioned run, as before scopes and partitions existed. */
    public RebuildProgress(String runId, String projection, String tenant, String state, long marked, long remaining,
                           long failing, double ratePerSecond, Instant startedAt, Instant finishedAt, String lastError) {
        this(runId, projection, tenant, state, marked, remaining, failing, ratePerSecond, startedAt, finishedAt,
                lastError, RebuildScope.everything(), 1, RUNNING.equals(state) ? 0 : 1, null, null, 0);
    }

    /** A verification rather than a rebuild. */
    public boolean verifies() {
        return VERIFY.equals(kind);
    }

    /**
     * For a verification: the drifted keys it marked whose refresh committed since — {@code marked - remaining}
     * ({@code remaining} counts failing ones too) while it runs or once it finished; empty once it was cancelled or
     * failed, when its marks not yet refreshed were deleted and no longer tell how many were.
     */
    public OptionalLong repaired() {
        if (CANCELLED.equals(state) || FAILED.equals(state)) {
            return OptionalLong.empty();
        }
        return OptionalLong.of(Math.max(0, marked - remaining));
    }

    /** Every id was marked and refreshed, or is left failing ({@link #FINISHED_FAILING}). */
    public boolean finished() {
        return FINISHED.equals(state) || FINISHED_FAILING.equals(state);
    }

    /** No longer running, however it ended. */
    public boolean ended() {
        return !RUNNING.equals(state);
    }

    /** How long it ran, or has run until {@code now}. */
    public Duration duration(Instant now) {
        return Duration.between(startedAt, finishedAt == null ? now : finishedAt);
    }

    /**
     * For a running run whose ids are all marked, the time left to refresh its {@code remaining} marks at the pace
     * its marks were refreshed so far; empty while ids are still being listed (their number is not known ahead) or
     * when nothing was refreshed yet.
     */
    public Optional<Duration> estimatedTimeLeft(Instant now) {
        if (!RUNNING.equals(state) || partitionsDone < partitions) {
            return Optional.empty();
        }
        long refreshed = marked - remaining;
        double seconds = duration(now).toMillis() / 1000.0;
        if (refreshed <= 0 || seconds <= 0) {
            return Optional.empty();
        }
        return Optional.of(Duration.ofMillis((long) (remaining / (refreshed / seconds) * 1000)));
    }
}
