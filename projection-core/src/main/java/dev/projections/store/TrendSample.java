package dev.projections.store;

import java.time.Instant;

/**
 * What one instance saw of one projection in one minute: the refreshes it completed and failed in it, their 99th
 * percentile in microseconds ({@code null} without a refresh), the backlog it counted after the minute ended
 * ({@code null} for a minute no sweep followed), and the lag of its refreshes of live marks as a histogram's text
 * ({@code null} without one; the trend package writes and reads it, the store only adds texts up).
 */
public record TrendSample(String projection, Instant minute, Long pending, Long dueNow, Long failing,
                          long refreshes, long failures, Long p99Micros, String lag) {

    /** A minute without lag. */
    public TrendSample(String projection, Instant minute, Long pending, Long dueNow, Long failing,
                       long refreshes, long failures, Long p99Micros) {
        this(projection, minute, pending, dueNow, failing, refreshes, failures, p99Micros, null);
    }
}
