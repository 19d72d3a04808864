/**
 * Internal: what an operator or an application can do to the engine — retry, resume and skip marks, pause, suspend and
 * resume projections, start and cancel rebuilds — and what an operator reads ({@link dev.projections.ops.Reads}), as
 * plain objects the {@code Engine} builds over its parts, each action checked, named in its errors and attributed to
 * its caller (docs/contract.md §2, §6, §12). What is refused is refused with a type
 * ({@link dev.projections.ops.UnknownProjection}, {@link dev.projections.ops.NoSuchMark},
 * {@link dev.projections.ops.DatabaseFailure}, else an {@code IllegalArgumentException} or
 * {@code IllegalStateException}), which each face maps once. The facade, the console's EJBs, the management API and the
 * tests call the same objects; the EE beans around them only check roles, demarcate transactions and delegate.
 * Applications use {@link dev.projections.Projections}.
 */
package dev.projections.ops;
