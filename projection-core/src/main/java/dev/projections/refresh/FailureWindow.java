package dev.projections.refresh;

import dev.projections.MarkKey;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.ToIntFunction;

/**
 * This instance's refresh outcomes of the last minute, per projection, to tell a fault of the projection (its
 * backend is down, a bug every key hits) from faults of single keys (docs/contract.md §6): when at least
 * {@code minFailingKeys} different keys failed and failures were at least {@code minPercent} of the refreshes,
 * the projection should be suspended rather than every key burn its attempts. Instants are the engine's clock.
 */
final class FailureWindow {

    static final Duration WINDOW = Duration.ofMinutes(1);

    private record Outcome(Instant at, MarkKey key, boolean failed) {
    }

    private final ToIntFunction<String> minFailingKeys;
    private final ToIntFunction<String> minPercent;
    private final Map<String, Deque<Outcome>> outcomes = new HashMap<>();

    /** The same thresholds for every projection. */
    FailureWindow(int minFailingKeys, int minPercent) {
        this(projection -> minFailingKeys, projection -> minPercent);
    }

    /** Each projection's own thresholds. */
    FailureWindow(ToIntFunction<String> minFailingKeys, ToIntFunction<String> minPercent) {
        this.minFailingKeys = minFailingKeys;
        this.minPercent = minPercent;
    }

    synchronized void record(MarkKey key, boolean failed, Instant at) {
        if (minFailingKeys.applyAsInt(key.projection()) == 0) {
            return;
        }
        Deque<Outcome> recent = outcomes.computeIfAbsent(key.projection(), p -> new ArrayDeque<>());
        recent.addLast(new Outcome(at, key, failed));
        prune(recent, at);
    }

    /** Why {@code projection} should be suspended now, if it should. */
    synchronized Optional<String> verdict(String projection, Instant now) {
        Deque<Outcome> recent = outcomes.get(projection);
        int minKeys = minFailingKeys.applyAsInt(projection);
        if (minKeys == 0 || recent == null) {
            return Optional.empty();
        }
        prune(recent, now);
        Set<MarkKey> failingKeys = new HashSet<>();
        int failures = 0;
        for (Outcome outcome : recent) {
            if (outcome.failed()) {
                failures++;
                failingKeys.add(outcome.key());
            }
        }
        if (failingKeys.size() < minKeys
                || failures * 100L < (long) minPercent.applyAsInt(projection) * recent.size()) {
            return Optional.empty();
        }
        return Optional.of(failures + " of " + recent.size() + " refreshes in the last minute failed, across "
                + failingKeys.size() + " keys");
    }

    /** Starts over for {@code projection} (it was suspended, or its suspension lifted). */
    synchronized void forget(String projection) {
        outcomes.remove(projection);
    }

    private static void prune(Deque<Outcome> recent, Instant now) {
        Instant from = now.minus(WINDOW);
        while (!recent.isEmpty() && recent.peekFirst().at().isBefore(from)) {
            recent.removeFirst();
        }
    }
}
