/**
 * The demo's JSON API under /api: orders, read models, load and fault injection, and its errors.
 */
package dev.projections.demo.api;
