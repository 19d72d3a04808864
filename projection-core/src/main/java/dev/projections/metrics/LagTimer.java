package dev.projections.metrics;

import dev.projections.MarkKey;
import dev.projections.refresh.RefreshLag;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.Collection;

/**
 * {@code projection.lag{projection}}: for each refresh that committed on this instance, the time from its key's first
 * mark ({@code first_marked_at}) to the refresh's commit — how stale the read model was at worst for that change
 * (docs/contract.md §9). A percentile histogram, so that a Prometheus user sums the buckets of every instance and takes
 * cluster-wide percentiles ({@code histogram_quantile(0.99, sum by (le, projection) (rate(projection_lag_seconds_bucket[5m])))});
 * with a freshness objective set, one bucket ends exactly at it. The first mark's time is the marking instance's clock,
 * the commit's this one's: a negative difference (clocks apart) counts as zero.
 */
public final class LagTimer implements RefreshLag {

    private final MeterRegistry registry;
    private final Function<String, Duration> objectiveOf;
    private final Map<String, Timer> timers = new ConcurrentHashMap<>();

    /** {@code objectiveOf}: a projection's freshness objective, {@code null} when it has none. */
    public LagTimer(MeterRegistry registry, Function<String, Duration> objectiveOf) {
        this.registry = registry;
        this.objectiveOf = objectiveOf;
    }

    /**
     * Registers each of {@code projections}' lag timer at once (its series exist from the start, at zero, for
     * dashboards and alerts) and {@code projection.freshness.objective{projection}}, in seconds, for each that has
     * one: a constant, so that one alert rule compares every projection's lag with its own objective
     * ({@code histogram_quantile(…) > on (projection) max by (projection) (projection_freshness_objective_seconds)}).
     */
    public void register(Collection<String> projections) {
        for (String projection : projections) {
            timers.computeIfAbsent(projection, this::timer);
            Duration objective = objectiveOf.apply(projection);
            if (objective != null) {
                double seconds = objective.toNanos() / 1e9;
                io.micrometer.core.instrument.Gauge.builder("projection.freshness.objective", () -> seconds)
                        .description("the lag the projection's refreshes should stay within (freshness-objective)")
                        .tag("projection", projection).baseUnit("seconds").strongReference(true).register(registry);
            }
        }
    }

    @Override
    public void refreshed(MarkKey key, Instant firstMarkedAt, Instant committedAt) {
        Duration lag = Duration.between(firstMarkedAt, committedAt);
        timers.computeIfAbsent(key.projection(), this::timer).record(lag.isNegative() ? Duration.ZERO : lag);
    }

    private Timer timer(String projection) {
        Timer.Builder builder = Timer.builder("projection.lag")
                .description("first mark of a key to the commit of the refresh that caught up with it, on this instance")
                .tag("projection", projection)
                .publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofMillis(1))
                .maximumExpectedValue(Duration.ofHours(1));
        Duration objective = objectiveOf.apply(projection);
        if (objective != null) {
            builder.serviceLevelObjectives(objective);
        }
        return builder.register(registry);
    }
}
