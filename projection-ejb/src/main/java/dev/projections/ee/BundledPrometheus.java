package dev.projections.ee;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.function.Supplier;

/**
 * The Prometheus registry bundled in the EAR, touched only through this class: an application that leaves
 * micrometer-registry-prometheus out of its EAR never loads it, and gets no metrics rather than a failed deployment.
 * Even loading this class needs the registry (the verifier checks it is a {@code MeterRegistry}), so callers ask
 * {@code EngineMetrics} whether it is there first, by name.
 */
final class BundledPrometheus {

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);

    MeterRegistry registry() {
        return registry;
    }

    Supplier<String> scrape() {
        return registry::scrape;
    }
}
