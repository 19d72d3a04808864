package dev.projections.ee;

import dev.projections.RefreshListener;
import dev.projections.TenantScope;
import dev.projections.engine.Engine;
import dev.projections.refresh.DrainerLauncher;
import dev.projections.refresh.InstanceHeartbeat;
import dev.projections.refresh.RebuildStepper;
import dev.projections.refresh.RefreshEngine;
import dev.projections.refresh.Sweep;
import dev.projections.trend.TrendSampler;
import jakarta.ejb.EJB;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;

/**
 * The deployment's {@link Engine}, built once by core's assembly from the container's parts: JTA transactions, the
 * {@link DrainerPool}'s threads, the {@link Drainer} EJB for the drainers' identity, the refresh timer and every
 * {@link RefreshListener} bean of the application.
 */
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

    @EJB
    DrainerPool pool;

    @EJB
    Drainer drainer;

    private Engine assembled;

    /** The engine's parts, built at the first call. */
    public synchronized Engine assembled() {
        if (assembled == null) {
            Engine.Builder builder = Engine.builder()
                    .store(resources.store())
                    .transactions(transactions)
                    .clock(resources.clock())
                    .settings(resources.settings())
                    .projections(registry)
                    .threads(pool::execute)
                    .runAs(drainer::run)
                    .tenantScope(tenantScope.isResolvable() ? tenantScope.get() : TenantScope.NONE)
                    .stats(resources.stats())
                    .handoff(resources.handoff())
                    .instanceId(resources.instanceId())
                    .refreshMinutes(resources.refreshMinutes())
                    .listener(metrics.refreshTimer());
            listeners.forEach(builder::listener);
            assembled = builder.build();
        }
        return assembled;
    }

    public RefreshEngine engine() {
        return assembled().refresh();
    }

    public RebuildStepper rebuilds() {
        return assembled().rebuilds();
    }

    public InstanceHeartbeat heartbeat() {
        return assembled().heartbeat();
    }

    /** The sweep's trend task: this instance's minutes and the backlog into {@code projection_trend}. */
    public TrendSampler trends() {
        return assembled().trends();
    }

    public Sweep sweep() {
        return assembled().sweep();
    }

    /** Where commits, operations and the sweep start drainers. */
    public DrainerLauncher drainers() {
        return assembled().drainers();
    }
}
