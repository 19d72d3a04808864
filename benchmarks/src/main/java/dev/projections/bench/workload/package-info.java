/**
 * The write model, the read model order-search, its projections (one by one, set-based, slow) and the check that it is
 * exact.
 */
package dev.projections.bench.workload;
