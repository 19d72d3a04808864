/**
 * Internal: the SQL of the product's tables, one class per table and role over a small
 * {@link dev.projections.store.Dialect} (docs/contract.md §4, §6, §7, §11; docs/design.md, "The store"). Statements run
 * on the caller's connection and transaction; every instant is a parameter. Depends on nothing above it: the engine
 * computes backoffs and retry instants, this only writes them.
 */
package dev.projections.store;
