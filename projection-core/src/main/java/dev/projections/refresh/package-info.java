/**
 * Internal: the engine as plain Java — claim, refresh and ack (docs/contract.md §4), the hand-off and its drainer
 * slots (§5), rebuild steps (§7) and the instance heartbeat. {@link dev.projections.refresh.EngineSteps} drives it
 * one step at a time for tests.
 */
package dev.projections.refresh;
