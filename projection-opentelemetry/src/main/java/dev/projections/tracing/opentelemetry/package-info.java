/**
 * Optional: refresh spans through OpenTelemetry (docs/contract.md §9, tracing) — the engine's tracing SPI implemented
 * over the server's or the application's OpenTelemetry, each refresh's span linked to the business transactions that
 * marked its keys.
 */
package dev.projections.tracing.opentelemetry;
