package dev.projections.store;

import java.time.Instant;

/**
 * What one instance saw of one projection in one minute: the refreshes it completed and failed in it, their 99th
 * percentile in microseconds ({@code null} without a refresh), and the backlog it counted after the minute ended
 * ({@code null} for a minute no sweep followed).
 */
public record TrendSample(String projection, Instant minute, Long pending, Long dueNow, Long failing,
                          long refreshes, long failures, Long p99Micros) {
}
