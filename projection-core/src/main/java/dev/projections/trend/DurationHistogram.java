package dev.projections.trend;

import java.time.Duration;

/**
 * Durations of one projection in one minute (its refreshes' times, its live marks' lag), for their percentiles, in fixed
 * memory however many there are: buckets whose bounds grow by a factor of 2^(1/8) (about 9 %) from 1 µs to about 17 hours. The percentile is
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
        return percentileMicros(0.99);
    }

    /** The {@code quantile} (0 < q <= 1) in microseconds, {@code null} when nothing was recorded. */
    Long percentileMicros(double quantile) {
        if (total == 0) {
            return null;
        }
        long rank = Math.max(1, (long) Math.ceil(total * quantile));
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

    /**
     * The histogram as text for a trend row: {@code "m:<longest> <bucket>:<count> ..."}, the buckets that counted
     * anything, in order; {@code null} when nothing was recorded. At most 289 tokens of at most 25 characters (7 KB)
     * however many durations it holds. Text joined with a space adds up: {@link #parse} of {@code a + " " + b} is a
     * histogram of both, which lets a row add a restarted process's half without reading the first.
     */
    String text() {
        if (total == 0) {
            return null;
        }
        StringBuilder text = new StringBuilder("m:").append(longestMicros);
        for (int bucket = 0; bucket < BUCKETS; bucket++) {
            if (counts[bucket] > 0) {
                text.append(' ').append(bucket).append(':').append(counts[bucket]);
            }
        }
        return text.toString();
    }

    /** Adds the histogram {@code text} describes; a token it cannot read (a later release's) is skipped. */
    void addText(String text) {
        if (text == null) {
            return;
        }
        for (String token : text.trim().split("\\s+")) {
            int colon = token.indexOf(':');
            if (colon < 1) {
                continue;
            }
            try {
                long value = Long.parseLong(token.substring(colon + 1));
                if (value < 0) {
                    continue;
                }
                String name = token.substring(0, colon);
                if (name.equals("m")) {
                    longestMicros = Math.max(longestMicros, value);
                    continue;
                }
                int bucket = Integer.parseInt(name);
                if (bucket >= 0 && bucket < BUCKETS) {
                    counts[bucket] += value;
                    total += value;
                }
            } catch (NumberFormatException unreadable) {
                // skipped, as documented
            }
        }
    }

    static int bucket(long micros) {
        int bucket = (int) Math.ceil(Math.log(micros) / Math.log(2) * STEPS_PER_DOUBLING - 1e-9);
        return Math.max(0, Math.min(BUCKETS - 1, bucket));
    }

    static long upperBound(int bucket) {
        return (long) Math.floor(Math.pow(2, (double) bucket / STEPS_PER_DOUBLING) + 1e-9);
    }
}
