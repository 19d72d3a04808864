package dev.projections.refresh;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Whether an application callback's failure is logged as a WARNING with its stack trace, per projection: the first
 * one, and the first one a minute after the last warning; the rest go at FINE. A listener that throws at every
 * refresh or event would otherwise write a warning for each. Of two failing at once, one warns.
 */
final class WarningThrottle {

    static final Duration EVERY = Duration.ofMinutes(1);

    private final Clock clock;
    private final Map<String, Instant> warnedAt = new ConcurrentHashMap<>();

    WarningThrottle(Clock clock) {
        this.clock = clock;
    }

    /** True for the first failure of {@code projection} and for the first one {@link #EVERY} after a warning. */
    boolean dueForWarning(String projection) {
        Instant now = clock.instant();
        Instant last = warnedAt.get(projection);
        if (last == null) {
            return warnedAt.putIfAbsent(projection, now) == null;
        }
        // one thread wins the replace: two failing at once do not both warn
        return !now.isBefore(last.plus(EVERY)) && warnedAt.replace(projection, last, now);
    }
}
