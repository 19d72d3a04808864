package dev.projections.ee;

import dev.projections.Projection;
import dev.projections.RebuildProgress;
import dev.projections.TenantDirectory;
import dev.projections.store.RebuildStore;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
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

    private final RebuildStore rebuildStore = new RebuildStore();

    /** For the caller's tenant. */
    String rebuild(String projection) {
        ArgumentChecks.projection(projection, registry);
        return rebuild(projection, sink.explicitTenant("rebuild(\"" + projection + "\")"));
    }

    String rebuild(String projection, String tenant) {
        Projection bean = registry.byName(ArgumentChecks.projection(projection, registry));
        if (tenant == null) {
            throw new IllegalArgumentException("tenant must not be null (use \"\" for none), projection " + projection);
        }
        String checkedTenant = ArgumentChecks.tenant(tenant);
        if (!Rebuildable.implementsIds(bean)) {
            throw new UnsupportedOperationException("projection " + projection + " cannot be rebuilt: implement "
                    + "Projection.ids(after, limit) to list its ids in order");
        }
        String runId = read("start a rebuild of " + projection,
                c -> rebuildStore.start(c, projection, checkedTenant, resources.clock().instant()));
        drainer.start();
        return runId;
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

    private <T> T read(String what, SqlCalls.Work<T> call) {
        return SqlCalls.call(resources.dataSource(), what, call);
    }
}
