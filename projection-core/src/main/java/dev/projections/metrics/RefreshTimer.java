package dev.projections.metrics;

import dev.projections.MarkKey;
import dev.projections.RefreshListener;
import dev.projections.RefreshOutcome;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * {@code projection.refresh{projection,outcome}}: every refresh on this instance, timed, with a percentile histogram
 * (1 ms to 10 min) so that percentiles can be taken across instances.
 */
public final class RefreshTimer implements RefreshListener {

    private final MeterRegistry registry;
    /* one timer per projection and outcome, built once: a histogram's builder is not for every refresh */
    private final Map<Series, Timer> timers = new ConcurrentHashMap<>();

    private record Series(String projection, RefreshOutcome outcome) {
    }

    public RefreshTimer(MeterRegistry registry) {
        this.registry = registry;
    }

    /**
     * Registers the {@code success} series of each of {@code projections} at once, so that dashboards and alerts find
     * it from the start (at zero); the other outcomes appear with their first refresh.
     */
    public void register(Collection<String> projections) {
        for (String projection : projections) {
            timer(new Series(projection, RefreshOutcome.SUCCESS));
        }
    }

    @Override
    public void refreshed(MarkKey key, RefreshOutcome outcome, Duration took) {
        timer(new Series(key.projection(), outcome)).record(took);
    }

    private Timer timer(Series series) {
        return timers.computeIfAbsent(series, ignored -> Timer.builder("projection.refresh")
                .description("refreshes on this instance, by outcome")
                .tag("projection", series.projection()).tag("outcome", series.outcome().tag())
                .publishPercentileHistogram().minimumExpectedValue(Duration.ofMillis(1))
                .maximumExpectedValue(Duration.ofMinutes(10))
                .register(registry));
    }
}
