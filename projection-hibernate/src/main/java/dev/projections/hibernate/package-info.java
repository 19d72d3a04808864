/**
 * Internal: automatic marking for persistence units on Hibernate ORM (docs/contract.md §3) — the integrator Hibernate
 * finds through {@code META-INF/services}, its listeners, key paths, and the per-session buffer written at commit.
 */
package dev.projections.hibernate;
