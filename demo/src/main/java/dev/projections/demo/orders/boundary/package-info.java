/**
 * The demo's order component, boundary: the write side's service and the read models' queries, and their errors.
 */
package dev.projections.demo.orders.boundary;
