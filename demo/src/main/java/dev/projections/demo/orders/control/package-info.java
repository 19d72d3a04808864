/**
 * The demo's order component, control: its two projections, its persistence unit and schema, and injectable faults.
 */
package dev.projections.demo.orders.control;
