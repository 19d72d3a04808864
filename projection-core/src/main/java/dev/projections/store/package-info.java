/**
 * Internal: the SQL of the product's tables, one implementation per database (docs/contract.md §4, §7, §11).
 * Statements run on the caller's connection and transaction; every instant is a parameter.
 */
package dev.projections.store;
