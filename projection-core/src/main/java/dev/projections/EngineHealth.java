package dev.projections;

import java.time.Duration;
import java.time.Instant;
import java.util.Set;

/**
 * The engine's health on this instance: {@code healthy} unless the database is unreachable or the last sweep
 * is older than three sweep intervals ({@code problem} says which).
 */
public record EngineHealth(boolean healthy, String problem, Instant lastSweep, Duration oldestDueAge,
                           Set<String> pausedProjections, java.util.Map<String, String> suspendedProjections) {
}
