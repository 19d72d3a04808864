/**
 * Internal: the EE adapters around the plain engine — facade, asynchronous drainers, sweep timer, start-up,
 * schema migration — the only place with EJB and CDI container annotations.
 */
package dev.projections.ee;
