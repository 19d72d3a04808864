package dev.projections;

import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import java.util.Map;

/**
 * The engine's health on this instance: {@code healthy} unless the database is unreachable or the last sweep
 * is older than three sweep intervals ({@code problem} says which). {@code clockSkew} is this instance's clock
 * against the database's at the last sweep ({@code null} before the first); a clock beyond its limit is reported,
 * and the log warns, but it leaves the instance healthy: taking it out of a load balancer would not set its clock.
 * {@code processing} is this instance's role ({@code projection.processing}: false on a web node);
 * {@code liveProcessingNodes} how many instances that process marks reported lately, at this instance's last sweep
 * ({@code -1} before its first count). None is a {@code problem} that leaves the instance healthy: its requests are
 * served and its marks written, and only a processing instance, not a restart of this one, refreshes them.
 */
public record EngineHealth(boolean healthy, String problem, Instant lastSweep, Duration oldestDueAge,
                           Set<String> pausedProjections, Map<String, String> suspendedProjections,
                           ClockSkew clockSkew, boolean processing, int liveProcessingNodes) {

    /** A processing instance's, before the count of processing instances. */
    public EngineHealth(boolean healthy, String problem, Instant lastSweep, Duration oldestDueAge,
                        Set<String> pausedProjections, Map<String, String> suspendedProjections,
                        ClockSkew clockSkew) {
        this(healthy, problem, lastSweep, oldestDueAge, pausedProjections, suspendedProjections, clockSkew, true, -1);
    }

    /** Without a measurement of the clock (as before the first sweep). */
    public EngineHealth(boolean healthy, String problem, Instant lastSweep, Duration oldestDueAge,
                        Set<String> pausedProjections, Map<String, String> suspendedProjections) {
        this(healthy, problem, lastSweep, oldestDueAge, pausedProjections, suspendedProjections, null);
    }
}
