package dev.projections.inspect;

import java.time.Instant;

/**
 * One minute of a projection across the instances that reported it: the largest backlog any of them counted, the
 * refreshes and failures of all, the worst instance's 99th percentile, and how many instances reported. The console's
 * copy of the store's {@code TrendPoint}: the store must not depend on this package, and the pages read no store type.
 */
public record TrendMinute(Instant minute, Long pending, Long dueNow, Long failing, long refreshes, long failures,
                          Long p99Micros, int instances) {
}
