/**
 * The demo: its tenant per thread (the X-Tenant header), and the TenantResolver, TenantScope and TenantDirectory it
 * gives the engine.
 */
package dev.projections.demo.tenancy;
