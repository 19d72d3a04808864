package dev.projections.metrics;

import java.util.Optional;

/** What {@code /projections/metrics} serves: the Prometheus text of the bundled registry, when that is in use. */
public interface MetricsText {

    /** The Prometheus text format, or empty when the application's own {@code MeterRegistry} receives the meters. */
    Optional<String> prometheus();

    /** Which registry receives the meters. */
    String registryDescription();
}
