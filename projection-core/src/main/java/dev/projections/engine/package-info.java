/**
 * Internal: the composition root (docs/design.md D37, D52) — {@link dev.projections.engine.Engine}, built by its
 * {@link dev.projections.engine.EngineBuilder} from a {@link dev.projections.engine.Container} port and one
 * {@link dev.projections.engine.Observers}, holds every part of one instance (store, refresh loop, rebuild steps,
 * drainer launcher, heartbeat, trends, sweep, the operations and the reads), for the server, the unit tests and the
 * benchmarks alike.
 */
package dev.projections.engine;
