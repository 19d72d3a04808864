package dev.projections.ee;

import dev.projections.TenantScope;
import dev.projections.refresh.RefreshEngine;
import dev.projections.refresh.RefreshListener;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;

/** The deployment's {@link RefreshEngine}, built once from the container's parts. */
@ApplicationScoped
public class EngineRuntime {

    @Inject
    EngineResources resources;

    @Inject
    ProjectionRegistry registry;

    @Inject
    JtaTransactions transactions;

    @Inject
    Instance<TenantScope> tenantScope;

    @Inject
    Instance<RefreshListener> listeners;

    private RefreshEngine engine;

    public synchronized RefreshEngine engine() {
        if (engine == null) {
            engine = new RefreshEngine(resources.store(), transactions, resources.clock(), resources.settings(),
                resources.handoff(), registry, tenantScope.isResolvable() ? tenantScope.get() : TenantScope.NONE,
                    listeners.isResolvable() ? listeners.get() : RefreshListener.NONE);
        }
        return engine;
    }
}
