/**
 * Internal: read-your-writes waits (docs/contract.md §14) — the capture of a thread's committed keys and the bounded
 * waits for their refresh, woken by refreshes on this instance and checked against the queue for the others'.
 */
package dev.projections.freshness;
