package dev.projections.trend;

import java.time.Duration;

/**
 * Refresh durations of one projection in one minute, for their 99th percentile, in fixed memory however many there
 * are: buckets whose bounds grow by a factor of 2^(1/8) (about 9 %) from 1 µs to about 17 hours. The percentile is
 * the upper bound of the bucket it falls in, never more than the longest duration seen: at most 9 % above the
 * exact value, never below it (beyond the last bound it is the longest seen). For example 1,000 refreshes of 2 ms and
 * 10 of 50 ms: the 99th percentile is the 1,000th of the 1,010, 2 ms, reported as the bound of its bucket, 2.05 ms.
 */
final class DurationHistogram {

    static final int STEPS_PER_DOUBLING = 8;
    private static final int BUCKETS = 36 * STEPS_PER_DOUBLING;

    private final long[] counts = new long[BUCKETS];
    private long total;
    private long longestMicros;

    void record(Duration took) {
        long micros = Math.max(1, took.toNanos() / 1000);
        counts[bucket(micros)]++;
        total++;
        longestMicros = Math.max(longestMicros, micros);
    }

    long count() {
        return total;
    }

    /** The 99th percentile in microseconds, {@code null} when nothing was recorded. */
    Long p99Micros() {
        if (total == 0) {
            return null;
        }
        long rank = (long) Math.ceil(total * 0.99);
        long seen = 0;
        for (int bucket = 0; bucket < BUCKETS; bucket++) {
            seen += counts[bucket];
            if (seen >= rank) {
                return bucket == BUCKETS - 1 ? longestMicros : Math.min(upperBound(bucket), longestMicros);
            }
        }
        return longestMicros;
    }

    /** Adds what {@code other} recorded. */
    void add(DurationHistogram other) {
        for (int bucket = 0; bucket < BUCKETS; bucket++) {
            counts[bucket] += other.counts[bucket];
        }
        total += other.total;
        longestMicros = Math.max(longestMicros, other.longestMicros);
    }

    static int bucket(long micros) {
        int bucket = (int) Math.ceil(Math.log(micros) / Math.log(2) * STEPS_PER_DOUBLING - 1e-9);
        return Math.max(0, Math.min(BUCKETS - 1, bucket));
    }

    static long upperBound(int bucket) {
        return (long) Math.floor(Math.pow(2, (double) bucket / STEPS_PER_DOUBLING) + 1e-9);
    }
}
