/**
 * The demo's order component, entity: customers, orders and their lines, marked through @Projected.
 */
package dev.projections.demo.orders.entity;
