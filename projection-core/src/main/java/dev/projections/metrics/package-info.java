/** Internal: the Micrometer meters of docs/contract.md §9. */
package dev.projections.metrics;
