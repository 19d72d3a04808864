/**
 * Internal: {@code /projections/health} and {@code /projections/metrics} (docs/contract.md §12), as servlets a web
 * fragment maps in an application's WAR, or the console WAR's web.xml maps in an EAR.
 */
package dev.projections.endpoints;
