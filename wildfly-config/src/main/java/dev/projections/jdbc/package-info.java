/**
 * The demo server's: the JDBC driver behind ProjectionDS, which routes to the database the server was started for.
 */
package dev.projections.jdbc;
