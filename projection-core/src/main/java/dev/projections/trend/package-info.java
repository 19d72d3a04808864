/**
 * Internal: the console's trends (docs/contract.md §12). Each instance counts its refreshes per projection and minute
 * ({@link dev.projections.trend.RefreshMinutes}); its sweep writes each minute that ended, with the backlog it counts
 * then, to {@code projection_trend} ({@link dev.projections.trend.TrendSampler}), which the console reads across
 * instances.
 */
package dev.projections.trend;
