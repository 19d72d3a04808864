package dev.projections.ee;

import dev.projections.Projection;
import dev.projections.RebuildProgress;
import dev.projections.RebuildScope;
import dev.projections.TenantDirectory;
import dev.projections.TenantScope;
import dev.projections.refresh.RebuildPlan;
import dev.projections.store.RebuildStore;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.security.Principal;
import java.util.List;
import java.util.Optional;

/** Starting background rebuild runs and reading their progress (docs/contract.md §7). */
@ApplicationScoped
public class RebuildRuns {

    @Inject
    EngineResources resources;

    @Inject
    ProjectionRegistry registry;

    @Inject
    MarkSinkBean sink;

    @Inject
    AfterCommitDrainer drainer;

    @Inject
    Instance<TenantDirectory> tenantDirectory;

    @Inject
    Instance<TenantScope> tenantScope;

    @Inject
    EngineRuntime runtime;

    @Inject
    Principal callerPrincipal;

    @jakarta.annotation.Resource
    jakarta.transaction.TransactionSynchronizationRegistry transactions;

    private final RebuildStore rebuildStore = new RebuildStore();

    /** For the caller's tenant. */
    String rebuild(String projection) {
        ArgumentChecks.projection(projection, registry);
        return rebuild(projection, sink.explicitTenant("rebuild(\"" + projection + "\")"));
    }

    String rebuild(String projection, String tenant) {
        return rebuild(projection, tenant, RebuildScope.everything(), 1);
    }

    String rebuild(String projection, String tenant, RebuildScope scope, int partitions) {
        Projection bean = registry.byName(ArgumentChecks.projection(projection, registry));
        if (tenant == null) {
            throw new IllegalArgumentException("tenant must not be null (use \"\" for none), projection " + projection);
        }
        String checkedTenant = ArgumentChecks.tenant(tenant);
        if (!Rebuildable.implementsIds(bean)) {
            throw new UnsupportedOperationException("projection " + projection + " cannot be rebuilt: implement "
                    + "Projection.ids(after, limit) to list its ids in order");
        }
        RebuildPlan.check(bean, scope, partitions);
        if ((!scope.isEverything() || partitions > 1) && !Rebuildable.implementsScopedIds(bean)) {
            throw new UnsupportedOperationException("projection " + projection + " lists rebuild scopes but does not "
                    + "implement Projection.ids(after, limit, scope), so it cannot rebuild " + scope);
        }
        List<String> bounds;
        try (TenantScope.Entered ignored = checkedTenant.isEmpty() || !tenantScope.isResolvable() ? () -> { }
                : tenantScope.get().enter(checkedTenant)) {
            RebuildPlan.probe(bean, scope);
            bounds = RebuildPlan.bounds(bean, scope, partitions);
        }
        String runId = read("start a rebuild of " + projection, c -> rebuildStore.start(c, projection, checkedTenant,
                scope, bounds, caller(), resources.clock().instant()));
        startedInThisTransaction().add(runId);
        drainer.start();
        return runId;
    }

    /** Cancels a running run, committed on its own before this returns; its rebuild marks are deleted afterwards. */
    void cancel(String runId) {
        if (runId == null) {
            throw new IllegalArgumentException("runId must not be null");
        }
        RebuildProgress run = progress(runId); // names an unknown run, before anything is written
        if (startedInThisTransaction().contains(runId)) {
            // the cancel commits on its own, and would wait for (or not see) a run this transaction has not committed
            throw new IllegalStateException("rebuild run " + runId + " of " + run.projection() + " was started in "
                    + "this transaction: cancel it once the transaction committed");
        }
        if (!runtime.rebuilds().cancel(runId, caller())) {
            throw new IllegalStateException("rebuild run " + runId + " of " + run.projection() + " is "
                    + progress(runId).state() + ", not running: there is nothing to cancel");
        }
    }

    List<RebuildProgress> history(String projection, int limit) {
        if (limit < 1 || limit > 1000) {
            throw new IllegalArgumentException("limit must be 1..1000, was " + limit);
        }
        return read("read the rebuild history", c -> rebuildStore.history(c, projection, limit,
                resources.clock().instant()));
    }

    private String caller() {
        return CallerName.of(callerPrincipal);
    }

    List<String> rebuildAllTenants(String projection) {
        ArgumentChecks.projection(projection, registry);
        if (!tenantDirectory.isResolvable()) {
            throw new IllegalStateException("rebuildAllTenants needs a TenantDirectory bean listing the tenants");
        }
        return tenantDirectory.get().tenants().stream().map(tenant -> rebuild(projection, tenant)).toList();
    }

    RebuildProgress progress(String runId) {
        if (runId == null) {
            throw new IllegalArgumentException("runId must not be null");
        }
        return read("read rebuild run " + runId, c -> rebuildStore.progress(c, runId, resources.clock().instant()))
                .orElseThrow(() -> new IllegalArgumentException("no rebuild run \"" + runId + "\""
                        + (registry.isKnown(runId) ? "; for a projection's latest run use latestRebuild(\"" + runId
                        + "\")" : "")));
    }

    /** The latest run of the caller's tenant. */
    Optional<RebuildProgress> latest(String projection) {
        ArgumentChecks.projection(projection, registry);
        String tenant = ArgumentChecks.tenant(sink.currentTenant());
        return read("read the latest rebuild of " + projection,
                c -> rebuildStore.latest(c, projection, tenant, resources.clock().instant()));
    }

    /** The runs this thread's transaction started, so far; outside a transaction an empty set nobody keeps. */
    @SuppressWarnings("unchecked")
    private java.util.Set<String> startedInThisTransaction() {
        if (transactions.getTransactionStatus() == jakarta.transaction.Status.STATUS_NO_TRANSACTION) {
            return new java.util.HashSet<>();
        }
        java.util.Set<String> started = (java.util.Set<String>) transactions.getResource(STARTED_RUNS);
        if (started == null) {
            started = new java.util.HashSet<>();
            transactions.putResource(STARTED_RUNS, started);
        }
        return started;
    }

    private static final String STARTED_RUNS = RebuildRuns.class.getName() + ".started";

    private <T> T read(String what, SqlCalls.Work<T> call) {
        return SqlCalls.call(resources, what, call);
    }
}
