/**
 * The plain unit's entities: the same orders and lines, unmarked, the baseline of the marking overhead.
 */
package dev.projections.bench.orm.plain;
