/**
 * The numbered scenarios, each measuring the product beside a bound in one run and printing ratios.
 */
package dev.projections.bench.scenario;
