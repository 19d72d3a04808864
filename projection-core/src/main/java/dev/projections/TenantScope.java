package dev.projections;

/**
 * Optional CDI bean that runs a refresh as a tenant: the worker enters it with the mark's tenant
 * <em>before</em> the refresh transaction begins (the container's EntityManager fixes its tenant when it
 * opens) and closes the returned handle afterwards, also after a failure, to restore the thread's context.
 * Marks without a tenant are refreshed without entering it: the product never guesses a tenant.
 */
public interface TenantScope {

    Entered enter(String tenantId);

    /** Restores the thread's previous tenant context. */
    interface Entered extends AutoCloseable {
        @Override
        void close();
    }

    /** The default: does nothing. */
    TenantScope NONE = tenantId -> () -> { };
}
