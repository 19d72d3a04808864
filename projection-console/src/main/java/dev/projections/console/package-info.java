/** Internal: the Jakarta Faces console, health and metrics endpoints (docs/contract.md §12). */
package dev.projections.console;
