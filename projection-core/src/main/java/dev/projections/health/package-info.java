/**
 * Internal: where the running engine's health can be read by health checks outside the engine's module.
 */
package dev.projections.health;
