package dev.projections.console;

import dev.projections.inspect.TrendMinute;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

/**
 * A projection's trends over one window, cut into equal buckets for a chart: the last hour by minute, the last day by
 * quarter hour. In a bucket of several minutes the backlog is the largest counted, the refresh rate the mean per
 * reported minute, the p99 the worst; a bucket no instance reported is a gap ({@code null}), never a zero.
 */
public final class TrendWindow {

    /** The windows the console offers. */
    public enum Span {
        HOUR(Duration.ofHours(1), Duration.ofMinutes(1)), DAY(Duration.ofDays(1), Duration.ofMinutes(15));

        final Duration length;
        final Duration bucket;

        Span(Duration length, Duration bucket) {
            this.length = length;
            this.bucket = bucket;
        }

        /** {@code "day"} → DAY; anything else the hour. */
        public static Span of(String name) {
            return "day".equalsIgnoreCase(name) ? DAY : HOUR;
        }
    }

    private final Span span;
    private final Instant start;
    private final List<Double> pending = new ArrayList<>();
    private final List<Double> due = new ArrayList<>();
    private final List<Double> failing = new ArrayList<>();
    private final List<Double> perMinute = new ArrayList<>();
    private final List<Double> p99Millis = new ArrayList<>();

    private TrendWindow(Span span, Instant start, List<TrendMinute> points) {
        this.span = span;
        this.start = start;
        int buckets = (int) (span.length.toMinutes() / span.bucket.toMinutes());
        List<List<TrendMinute>> byBucket = new ArrayList<>();
        for (int i = 0; i < buckets; i++) {
            byBucket.add(new ArrayList<>());
        }
        for (TrendMinute point : points) {
            long index = Duration.between(start, point.minute()).toMinutes() / span.bucket.toMinutes();
            if (index >= 0 && index < buckets) {
                byBucket.get((int) index).add(point);
            }
        }
        for (List<TrendMinute> bucket : byBucket) {
            pending.add(largest(bucket.stream().map(TrendMinute::pending).toList()));
            due.add(largest(bucket.stream().map(TrendMinute::dueNow).toList()));
            failing.add(largest(bucket.stream().map(TrendMinute::failing).toList()));
            perMinute.add(bucket.isEmpty() ? null
                    : (double) bucket.stream().mapToLong(TrendMinute::refreshes).sum() / bucket.size());
            Double p99 = largest(bucket.stream().map(TrendMinute::p99Micros).toList());
            p99Millis.add(p99 == null ? null : p99 / 1000);
        }
    }

    /** The window of {@code span} that ends with the minute before {@code now}'s (the quarter hour under way for a
     * day), from the points read for it. */
    public static TrendWindow of(Span span, Instant now, List<TrendMinute> points) {
        return new TrendWindow(span, start(span, now), points);
    }

    /**
     * Where the window of {@code span} ending at {@code now} starts: what to read from the trend table. Its buckets keep
     * to the clock (quarter hours of the day: 10:00, 10:15…), so a bucket holds the same minutes whenever the page is
     * drawn; the last one is the bucket under way, with the minutes that have ended in it.
     */
    public static Instant start(Span span, Instant now) {
        long bucketSeconds = span.bucket.toSeconds();
        long current = Math.floorDiv(now.getEpochSecond(), bucketSeconds) * bucketSeconds;
        Instant end = span.bucket.toMinutes() == 1 ? Instant.ofEpochSecond(current)
                : Instant.ofEpochSecond(current).plus(span.bucket);
        return end.minus(span.length);
    }

    private static Double largest(List<Long> values) {
        return values.stream().filter(v -> v != null).mapToDouble(Long::doubleValue).boxed()
                .max(Double::compare).orElse(null);
    }

    public Span span() {
        return span;
    }

    public Instant start() {
        return start;
    }

    public List<Double> pending() {
        return pending;
    }

    public List<Double> due() {
        return due;
    }

    public List<Double> failing() {
        return failing;
    }

    public List<Double> perMinute() {
        return perMinute;
    }

    public List<Double> p99Millis() {
        return p99Millis;
    }
}
