/**
 * Engine instances assembled by core's Engine as the server's are, the plain-SQL bound, and CPU and parallel-loop
 * helpers.
 */
package dev.projections.bench.engine;
