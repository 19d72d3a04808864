/**
 * Internal: the retention of the history tables (docs/contract.md §12, retention) — operators' audit entries and ended
 * rebuild runs, pruned by the sweep in bounded batches ({@link dev.projections.retention.HistoryPruner}).
 */
package dev.projections.retention;
