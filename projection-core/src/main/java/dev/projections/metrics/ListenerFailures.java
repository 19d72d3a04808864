package dev.projections.metrics;

import dev.projections.refresh.EngineStats;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * {@code projection.listener.failures{projection}}: the application's code that threw once a refresh's outcome was
 * settled (a {@code RefreshListener}, the close of a {@code TenantScope}) on this instance, read from
 * {@link EngineStats}. The refreshes stood; a rising count is the application's to look at (docs/contract.md §6).
 */
public final class ListenerFailures {

    private ListenerFailures() {
    }

    public static void register(MeterRegistry registry, EngineStats stats, Iterable<String> projections) {
        PerProjectionCounter.register(registry, "projection.listener.failures", "RefreshListener calls and TenantScope"
                + " closes that threw after a refresh's outcome was settled; the refresh stood", projections,
                stats::listenerFailures);
    }
}
