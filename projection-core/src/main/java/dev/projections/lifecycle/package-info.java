/**
 * API: the engine's lifecycle events — a mark parked, a projection suspended or resumed, a rebuild run ended — which an
 * application observes as CDI events (docs/contract.md §6, §7).
 */
package dev.projections.lifecycle;
