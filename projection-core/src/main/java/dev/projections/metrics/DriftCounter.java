package dev.projections.metrics;

import dev.projections.refresh.EngineStats;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * {@code projection.drift{projection}}: the keys this instance found drifted — their read-model rows differing from
 * what a refresh would write — and re-marked, by its drift samples and the verification steps it ran (docs/design.md
 * D58), read from {@link EngineStats}. Any increase is worth a look: something changes the read model or its sources
 * without a mark (the alert rule ProjectionDriftFound).
 */
public final class DriftCounter {

    private DriftCounter() {
    }

    public static void register(MeterRegistry registry, EngineStats stats, Iterable<String> projections) {
        PerProjectionCounter.register(registry, "projection.drift", "Keys found drifted (read model differing from what"
                + " a refresh would write) and re-marked by drift samples and verification runs", projections,
                stats::drifted);
    }
}
