/**
 * Internal: {@code /projections/health} and {@code /projections/metrics} (docs/contract.md §12), and the test support's
 * {@code /projections/test/*} (§14, only with {@code projection.test-support=true}), as servlets a web fragment maps
 * in an application's WAR, or the console WAR's web.xml maps in an EAR.
 */
package dev.projections.endpoints;
