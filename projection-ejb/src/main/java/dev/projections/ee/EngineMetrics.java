package dev.projections.ee;

import dev.projections.metrics.MetricsText;
import dev.projections.metrics.PendingGauges;
import dev.projections.metrics.RefreshTimer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.util.Optional;

/**
 * The engine's meters (docs/contract.md §9). They go to the application's {@code MeterRegistry} bean when it supplies one,
 * else to a Prometheus registry bundled in the EAR and served at {@code /projections/metrics}.
 */
@ApplicationScoped
public class EngineMetrics implements MetricsText {

    @Inject
    Instance<MeterRegistry> applicationRegistry;

    @Inject
    EngineResources resources;

    @Inject
    ProjectionRegistry projections;

    private MeterRegistry registry;
    private PrometheusMeterRegistry prometheus;
    private RefreshTimer refreshTimer;

    @PostConstruct
    void init() {
        if (applicationRegistry.isResolvable()) {
            registry = applicationRegistry.get();
        } else {
            prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
            registry = prometheus;
        }
        new PendingGauges(resources.dataSource(), resources.store(), resources.clock())
                .register(registry, projections.names());
        refreshTimer = new RefreshTimer(registry);
    }

    public RefreshTimer refreshTimer() {
        return refreshTimer;
    }

    @Override
    public Optional<String> prometheus() {
        return prometheus == null ? Optional.empty() : Optional.of(prometheus.scrape());
    }

    @Override
    public String registryDescription() {
        return prometheus != null ? "bundled Prometheus registry"
                : "the application's MeterRegistry (" + registry.getClass().getName() + ")";
    }
}
