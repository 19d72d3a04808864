/**
 * The benchmarks' Hibernate units in Java SE: one marked by the product's integration, one plain, on the same tables.
 */
package dev.projections.bench.orm;
