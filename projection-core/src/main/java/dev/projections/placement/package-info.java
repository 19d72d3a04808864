/** Internal: the deployment check that projection beans sit where the engine can see them (§13). */
package dev.projections.placement;
