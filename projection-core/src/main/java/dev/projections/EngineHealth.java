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
 */
public record EngineHealth(boolean healthy, String problem, Instant lastSweep, Duration oldestDueAge,
                           Set<String> pausedProjections, Map<String, String> suspendedProjections,
                           ClockSkew clockSkew) {

    /** Without a measurement of the clock (as before the first sweep). */
    public EngineHealth(boolean healthy, String problem, Instant lastSweep, Duration oldestDueAge,
                        Set<String> pausedProjections, Map<String, String> suspendedProjections) {
        this(healthy, problem, lastSweep, oldestDueAge, pausedProjections, suspendedProjections, null);
    }
}
