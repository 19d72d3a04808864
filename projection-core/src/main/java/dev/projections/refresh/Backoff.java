package dev.projections.refresh;

import dev.projections.config.ProjectionSettings;
import java.time.Duration;

/**
 * When a failing mark is due again (docs/contract.md §4 step 5). With n the attempts after the failure, the delay is
 * {@code min(retryDelay · 2^min(n−1, 30), maxRetryDelay)}: with the defaults 5 s, 10 s, 20 s, 40 s, 80 s,
 * 160 s, then 5 min for every later failure.
 */
public record Backoff(Duration retryDelay, Duration maxRetryDelay) {

    /** The backoff of a projection's marks: its {@code retry-delay} and {@code max-retry-delay}. */
    public static Backoff of(ProjectionSettings settings) {
        return new Backoff(settings.retryDelay(), settings.maxRetryDelay());
    }

    public Duration delayAfter(int attempts) {
        int doublings = Math.min(Math.max(attempts, 1) - 1, 30);
        Duration delay = retryDelay.multipliedBy(1L << doublings);
        return delay.compareTo(maxRetryDelay) > 0 ? maxRetryDelay : delay;
    }
}
