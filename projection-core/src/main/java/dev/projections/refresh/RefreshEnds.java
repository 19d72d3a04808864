package dev.projections.refresh;

import dev.projections.RefreshOutcome;
import dev.projections.store.AckOutcome;
import dev.projections.store.ClaimedMark;
import java.time.Duration;
import java.time.Instant;

/**
 * What follows a refresh's end on every path: the lag, the suspension guard, the back-pressure counts, the typical
 * refresh time, and last the listeners, whatever they throw (docs/contract.md §4 steps 4–5, §6).
 */
final class RefreshEnds {

    private final LiveLag lag;
    private final SuspensionGuard guard;
    private final PressureGiveBacks giveBacks;
    private final FailureRecorder failures;
    private final ApplicationCallbacks callbacks;
    private final RefreshTimes times;

    RefreshEnds(LiveLag lag, SuspensionGuard guard, PressureGiveBacks giveBacks, FailureRecorder failures,
                ApplicationCallbacks callbacks, RefreshTimes times) {
        this.lag = lag;
        this.guard = guard;
        this.giveBacks = giveBacks;
        this.failures = failures;
        this.callbacks = callbacks;
        this.times = times;
    }

    /** The refresh of {@code mark} committed and acked at {@code committedAt}, having taken {@code took}. */
    void succeeded(ClaimedMark mark, AckOutcome outcome, Instant committedAt, Duration took) {
        lag.refreshed(mark, committedAt);
        guard.succeeded(mark.key());
        giveBacks.ended(mark.key());
        times.took(mark.key().projection(), took);
        callbacks.refreshed(mark.key(), outcome, took);
    }

    /** The refresh of {@code mark} failed, not by back-pressure: recorded (step 5), counted, told. */
    void failed(ClaimedBatch batch, ClaimedMark mark, Throwable failure, Duration took) {
        giveBacks.ended(mark.key());
        failures.record(mark, failure);
        if (guard.failed(mark.key(), FailureText.of(failure))) {
            batch.suspended(mark.key().projection());
        }
        callbacks.refreshed(mark.key(), RefreshOutcome.FAILED, took);
    }
}
