package dev.projections;

/**
 * Optional CDI bean giving the tenant of an automatic mark when the Hibernate session has no tenant
 * identifier. Return {@code null} or {@code ""} for none. At most 64 characters.
 */
public interface TenantResolver {

    String currentTenant();
}
