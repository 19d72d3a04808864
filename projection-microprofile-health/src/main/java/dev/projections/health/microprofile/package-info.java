/**
 * Optional: the MicroProfile Health readiness check "projections", UP while the engine runs and is healthy.
 */
package dev.projections.health.microprofile;
