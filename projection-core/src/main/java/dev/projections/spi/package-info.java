/**
 * SPI: what another module implements or reads — {@link dev.projections.spi.RefreshTracing}, which a tracer
 * implements to follow a change from its commit to its refresh ({@code projection-opentelemetry} is one), and
 * {@link dev.projections.spi.RunningEngines}, where a health check reads the running engines' health
 * ({@code projection-microprofile-health} is one). Kept stable as the root package's API is.
 */
package dev.projections.spi;
