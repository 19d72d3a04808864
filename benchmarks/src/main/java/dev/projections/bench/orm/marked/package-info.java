/**
 * The marked unit's entities: orders and lines with @Projected.
 */
package dev.projections.bench.orm.marked;
