/**
 * The benchmark harness (docs/BENCHMARKS.md): options, the suite of scenarios, their reports and series.
 */
package dev.projections.bench;
