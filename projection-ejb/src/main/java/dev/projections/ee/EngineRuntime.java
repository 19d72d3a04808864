package dev.projections.ee;

import dev.projections.TenantScope;
import dev.projections.refresh.InstanceHeartbeat;
import dev.projections.refresh.RebuildStepper;
import dev.projections.store.RebuildStore;
import dev.projections.refresh.RefreshEngine;
import dev.projections.RefreshListener;
import dev.projections.trend.TrendSampler;
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

    @Inject
    EngineMetrics metrics;

    private RefreshEngine engine;
    private InstanceHeartbeat heartbeat;
    private TrendSampler trends;

    public synchronized RefreshEngine engine() {
        if (engine == null) {
            engine = new RefreshEngine(resources.store(), transactions, resources.clock(), resources.settings(),
                resources.handoff(), registry, tenantScope.isResolvable() ? tenantScope.get() : TenantScope.NONE,
                    allListeners(), resources.stats(), rebuilds());
        }
        return engine;
    }

    private RebuildStepper rebuilds;

    public synchronized RebuildStepper rebuilds() {
        if (rebuilds == null) {
            rebuilds = new RebuildStepper(new RebuildStore(), resources.store().queue(), transactions, resources.clock(),
                    registry, tenantScope.isResolvable() ? tenantScope.get() : TenantScope.NONE,
                    resources.settings().rebuildPageSize(), resources.settings().leaseTime());
        }
        return rebuilds;
    }

    /**
     * The refresh timer, the console's refreshes/min and every {@link RefreshListener} bean of the application, each
     * told even when one before it threw; the engine logs and counts what they threw (docs/contract.md §6).
     */
    private RefreshListener allListeners() {
        java.util.List<RefreshListener> all = new java.util.ArrayList<>();
        all.add(metrics.refreshTimer());
        all.add(resources.refreshMinutes());
        all.add((key, outcome, took) -> {
            if (outcome != dev.projections.RefreshOutcome.FAILED) {
                resources.stats().refreshRate().record(key.projection(), java.time.Instant.now());
            }
        });
        listeners.forEach(all::add);
        return new EveryListener(all);
    }

    public synchronized InstanceHeartbeat heartbeat() {
        if (heartbeat == null) {
            heartbeat = new InstanceHeartbeat(resources.store().instances(), resources.store().nodes(), this::activity,
                    transactions, resources.clock(), registry, resources.instanceId(), resources.settings().leaseTime(),
                    resources.stats());
        }
        return heartbeat;
    }

    private InstanceHeartbeat.Activity activity() {
        java.time.Instant now = java.time.Instant.now();
        long perMinute = registry.names().stream()
                .mapToLong(name -> resources.stats().refreshRate().lastMinute(name, now)).sum();
        return new InstanceHeartbeat.Activity(resources.settings().workers(), resources.handoff().inFlight(),
                engine().claimsHeld(), perMinute);
    }

    /** The sweep's trend task: this instance's minutes and the backlog into {@code projection_trend}. */
    public synchronized TrendSampler trends() {
        if (trends == null) {
            trends = new TrendSampler(resources.store().trends(), resources.store().nodes(), resources.counts(),
                    resources.refreshMinutes(), transactions, resources.clock(), registry, resources.instanceId(),
                    resources.settings().trendRetention());
        }
        return trends;
    }
}
