/**
 * SPI: what a JPA provider's marking integration builds on (docs/contract.md §3), naming no provider — the sink marks
 * are delivered to and how it is found, the buffer of one transaction's marks, the rule for projection names, and the
 * registry of started persistence units with projected entities. The integrations are projection-hibernate and
 * projection-eclipselink.
 */
package dev.projections.marking;
