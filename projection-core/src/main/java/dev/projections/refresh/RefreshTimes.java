package dev.projections.refresh;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Each projection's typical refresh time per mark: a moving average of its latest refreshes on any path, committed or
 * rolled back (a refresh that fails slowly counts too), each new one weighing a quarter. Among a projection's first
 * {@value #WARMING} refreshes a faster one weighs a half: those after a start, slow while the server warms up, are soon
 * outweighed (issue 47 item 3); after them the weights are equal again, so the average rests at the refreshes' mean
 * and not below it (a projection whose refreshes are often long must not look short).
 */
final class RefreshTimes {

    /** How many of a projection's first refreshes count as warming up. */
    static final int WARMING = 16;

    private record Typical(long nanos, int count) {
        Typical after(long latest) {
            int weight = count < WARMING && latest < nanos ? 2 : 4;
            return new Typical(nanos + (latest - nanos) / weight, count + 1);
        }
    }

    private final Map<String, Typical> typical = new ConcurrentHashMap<>();

    /** A refresh of {@code projection} took {@code took} per mark. */
    void took(String projection, Duration took) {
        long nanos = Math.max(0, took.toNanos());
        typical.merge(projection, new Typical(nanos, 1), (before, latest) -> before.after(latest.nanos()));
    }

    /** Whether one of {@code projection}'s refreshes has been timed and they typically take at most {@code bound}. */
    boolean typicallyWithin(String projection, Duration bound) {
        Typical now = typical.get(projection);
        return now != null && now.nanos() <= bound.toNanos();
    }
}
