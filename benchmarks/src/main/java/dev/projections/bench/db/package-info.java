/**
 * The benchmark database: its schema made by the real changelog, statement counting, the queue's vacuum.
 */
package dev.projections.bench.db;
