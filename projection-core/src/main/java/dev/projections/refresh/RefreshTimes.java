package dev.projections.refresh;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Each projection's typical refresh time per mark: a moving average of its latest refreshes on any path, committed or
 * rolled back (a refresh that fails slowly counts too). A refresh faster than the average weighs a half, a slower one a
 * quarter: the first refreshes after a start, slow while the server warms up, are soon outweighed (issue 47 item 3),
 * and one slow refresh among fast ones moves the average less than a run of them.
 */
final class RefreshTimes {

    private final Map<String, Long> typicalNanos = new ConcurrentHashMap<>();

    /** A refresh of {@code projection} took {@code took} per mark. */
    void took(String projection, Duration took) {
        long nanos = Math.max(0, took.toNanos());
        typicalNanos.merge(projection, nanos,
                (before, latest) -> before + (latest - before) / (latest < before ? 2 : 4));
    }

    /** Whether one of {@code projection}'s refreshes has been timed and they typically take at most {@code bound}. */
    boolean typicallyWithin(String projection, Duration bound) {
        Long typical = typicalNanos.get(projection);
        return typical != null && typical <= bound.toNanos();
    }
}
