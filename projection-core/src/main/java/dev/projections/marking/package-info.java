/**
 * Internal: the Hibernate integration that marks changed aggregates (docs/contract.md §3) — the integrator, its
 * listeners, key paths, the per-session buffer written at commit, and the registry of projected persistence units.
 */
package dev.projections.marking;
