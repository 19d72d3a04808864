/**
 * SPI: automatic marking for persistence units on EclipseLink (docs/contract.md §3) — the session customizer a unit
 * names, its descriptor listener that marks {@code @Projected} entities, and the session listener that writes a
 * transaction's marks at commit and hands them to the drainers after it. The rest is internal.
 */
package dev.projections.eclipselink;
