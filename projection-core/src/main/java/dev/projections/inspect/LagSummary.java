package dev.projections.inspect;

import java.time.Duration;

/**
 * The lag (first mark → refresh commit) of a projection's refreshes of live marks over a window of trend minutes,
 * every instance's added up: how many, their median and 99th percentile in microseconds ({@code null} without one).
 * A percentile is the upper bound of its histogram bucket: at most 9 % above the exact value, never below it.
 */
public record LagSummary(long refreshes, Long p50Micros, Long p99Micros) {

    public static final LagSummary NONE = new LagSummary(0, null, null);

    /**
     * Whether 99 % of the refreshes caught up within {@code objective}: {@code null} without an objective or a refresh.
     * The p99 is never below the exact value, so "met" is never claimed for a window that missed the objective; a
     * window whose exact p99 lies within 9 % under the objective may show as missed.
     */
    public Boolean objectiveMet(Duration objective) {
        if (objective == null || p99Micros == null) {
            return null;
        }
        return p99Micros <= objective.toNanos() / 1_000;
    }
}
