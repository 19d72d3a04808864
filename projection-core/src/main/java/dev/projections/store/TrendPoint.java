package dev.projections.store;

import java.time.Instant;

/**
 * One minute of a projection across the instances that reported it: the largest backlog any of them counted (they
 * count the same shared table, moments apart), the refreshes and failures of all, the worst instance's 99th
 * percentile (percentiles do not add up; the worst is what an operator looks for), and how many instances reported.
 */
public record TrendPoint(Instant minute, Long pending, Long dueNow, Long failing, long refreshes, long failures,
                         Long p99Micros, int instances) {
}
