/**
 * Internal: the engine assembled — {@link dev.projections.engine.Engine} builds one instance's parts (store,
 * transactions, refresh loop, rebuild steps, drainer launcher, heartbeat, trends, sweep) in one place for the server,
 * the unit tests and the benchmarks.
 */
package dev.projections.engine;
