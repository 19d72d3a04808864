/** Internal: the settings of docs/contract.md §10, parsed and validated together. */
package dev.projections.config;
