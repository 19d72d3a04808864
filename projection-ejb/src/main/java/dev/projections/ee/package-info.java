/**
 * Internal: one adapter and thin doors around the plain engine (docs/design.md D52) — {@code EngineResources} (what only
 * the container knows: settings source, datasource, schema, node name; from them core's {@code Foundation}), {@code EngineRuntime} (builds the engine, the
 * one door to it), {@code ServerContainer} (the engine's JTA and managed-thread port), the facade, the drainers' pool
 * and EJB, the sweep timer, start-up and schema migration. The console's page beans carry CDI annotations of their own
 * ({@code projection-console}).
 */
package dev.projections.ee;
