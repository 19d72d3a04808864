/**
 * Internal: what the operator console reads and writes besides the engine's own statements (docs/contract.md §12): keyset pages of
 * pending and failing marks, capped counts, per-tenant counts, marks of projections no instance deploys, and the
 * audit log. Plain SQL that PostgreSQL, H2 and MariaDB run (row limits and timestamps come from the store's
 * {@code Dialect}); every list is served by an index in its sort order. Besides, the read types the console's pages take
 * where the store has a record of its own ({@link dev.projections.inspect.InstanceReport},
 * {@link dev.projections.inspect.TrendMinute}, {@link dev.projections.inspect.PartitionProgress}): core's
 * {@code ops.Reads} maps them, so the faces read only this package and the API, and the store keeps depending on
 * nothing above it.
 */
package dev.projections.inspect;
