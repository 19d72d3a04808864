package dev.projections.ee.admin;

import dev.projections.FailedRefresh;
import dev.projections.ParkedSelection;
import dev.projections.Projection;
import dev.projections.Projections;
import dev.projections.RebuildScope;
import dev.projections.TenantScope;
import dev.projections.ops.Arguments;
import dev.projections.ee.Operations;
import dev.projections.ee.EngineResources;
import dev.projections.ee.ProjectionRegistry;
import dev.projections.ops.Rebuildable;
import dev.projections.ops.Sql;
import dev.projections.inspect.AuditEntry;
import dev.projections.inspect.AuditLog;
import jakarta.annotation.Resource;
import jakarta.annotation.security.DeclareRoles;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ejb.SessionContext;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * The console's actions (docs/contract.md §12): only {@value ConsoleRoles#ADMIN} may call them, checked here at the EJB
 * boundary whatever the page showed. Each action and its {@code projection_audit} row commit together, in the
 * container's transaction; a refused action leaves neither. The security domain is {@code projections}
 * (META-INF/jboss-ejb3.xml), the domain the console's login uses.
 */
@Stateless
@DeclareRoles({ConsoleRoles.ADMIN, ConsoleRoles.VIEWER})
@RolesAllowed(ConsoleRoles.ADMIN)
public class ConsoleAdmin {

    @Inject
    Projections projections;

    @Inject
    EngineResources resources;

    @Inject
    ProjectionRegistry registry;

    @Inject
    Operations operations;

    @Inject
    Instance<TenantScope> tenantScope;

    @Resource
    SessionContext context;

    private final AuditLog audit = new AuditLog();

    /** Makes one failing mark due now, keeping its attempts. */
    public void retry(String projection, String tenant, String id) {
        act(() -> {
            projections.retry(projection, tenant, id);
            return null;
        });
        record("retry", projection, tenant, id, null);
    }

    /** Makes every failing mark of {@code projection} due now; returns how many. */
    public int retryFailed(String projection) {
        int retried = act(() -> projections.retryFailed(projection));
        record("retry-failed", projection, null, null, retried + " marks");
        return retried;
    }

    /** Makes the selected parked marks due now, attempts kept; returns how many. */
    public int resumeParked(ParkedSelection selection) {
        int resumed = act(() -> projections.resumeParked(selection));
        record("resume-parked", selection.projection(), selection.tenant(), selection.entityId(),
                describe(selection, resumed));
        return resumed;
    }

    /**
     * Deletes the selected parked marks, leaving their read-model rows as they are; returns how many. The audit
     * keeps each skipped key with its last error, in the action's transaction.
     */
    public int skipParked(ParkedSelection selection) {
        List<FailedRefresh> skipped = act(() -> operations.marks().skipParked(selection));
        for (FailedRefresh mark : skipped) {
            record("skip-parked", selection.projection(), mark.tenant(), mark.id(),
                    "after " + mark.attempts() + " attempts: " + mark.lastError());
        }
        return skipped.size();
    }

    private static String describe(ParkedSelection selection, int count) {
        return count + " marks" + (selection.errorPrefix() == null ? "" : " with error \"" + selection.errorPrefix() + "…\"");
    }

    /** Starts a rebuild of {@code projection} for one tenant ({@code ""} for none); returns its run id. */
    public String rebuild(String projection, String tenant) {
        String runId = act(() -> projections.rebuild(projection, tenant));
        record("rebuild", projection, tenant, null, "run " + runId);
        return runId;
    }

    /**
     * Starts a rebuild of {@code scope} in {@code partitions}, for one tenant ({@code ""} for none) or, with
     * {@code null}, for every tenant of the application's {@code TenantDirectory}; returns the run ids.
     */
    public List<String> rebuild(String projection, String tenant, RebuildScope scope, int partitions) {
        String by = context.getCallerPrincipal().getName();
        List<String> runs = tenant != null ? List.of(act(() -> projections.rebuild(projection, tenant, scope, partitions)))
                : act(() -> operations.rebuilds().startForEveryTenant(projection, scope, partitions, by));
        record(tenant == null ? "rebuild-all-tenants" : "rebuild", projection, tenant, null,
                scope + (partitions > 1 ? " in " + partitions + " partitions" : "") + ", runs " + runs);
        return runs;
    }

    /** Cancels a running rebuild run, committed on its own before this returns (docs/contract.md §7); its rebuild marks are deleted afterwards, live ones stay. */
    public void cancelRebuild(String runId) {
        dev.projections.RebuildProgress run = act(() -> projections.rebuildProgress(runId));
        act(() -> {
            projections.cancelRebuild(runId);
            return null;
        });
        record("cancel-rebuild", run.projection(), run.tenant(), null, "run " + runId + " (" + run.scope() + "), "
                + run.marked() + " marked");
    }

    /** Starts a rebuild for every tenant of the application's {@code TenantDirectory}. */
    public List<String> rebuildAllTenants(String projection) {
        List<String> runs = act(() -> projections.rebuildAllTenants(projection));
        record("rebuild-all-tenants", projection, null, null, "runs " + runs);
        return runs;
    }

    /** Whether {@code projection} offers {@code clear()}, so the console shows "clear and rebuild". */
    @RolesAllowed({ConsoleRoles.ADMIN, ConsoleRoles.VIEWER})
    public boolean offersClear(String projection) {
        return registry.isKnown(projection) && Rebuildable.implementsClear(registry.byName(projection));
    }

    /**
     * "Clear and rebuild" for one tenant ({@code ""} for none), or for every tenant of the {@code TenantDirectory}
     * when {@code tenant} is {@code null} (tenant {@code ""} without one). Per tenant, the projection's
     * {@code clear()} runs inside that tenant's {@code TenantScope}, entered before the transaction begins
     * (docs/contract.md §2, §8), and the clear, the start of the rebuild and the audit row commit together: if a rebuild of
     * that tenant is already running, its read model is not cleared.
     */
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    public List<String> clearAndRebuild(String projection, String tenant) {
        Projection bean = act(() -> registry.byName(Arguments.projection(projection, registry)));
        if (!Rebuildable.implementsClear(bean) || !Rebuildable.implementsIds(bean)) {
            throw new ActionRefused("projection " + projection + " does not offer clear() and ids(): it cannot be "
                    + "cleared and rebuilt", null);
        }
        List<String> tenants = tenant != null ? List.of(tenant)
                : operations.rebuilds().hasTenantDirectory() ? operations.rebuilds().tenants() : List.of("");
        ConsoleAdmin self = context.getBusinessObject(ConsoleAdmin.class);
        TenantScope scope = tenantScope.isResolvable() ? tenantScope.get() : TenantScope.NONE;
        List<String> runs = new ArrayList<>();
        for (String each : tenants) {
            try (TenantScope.Entered entered = each.isEmpty() ? () -> { } : scope.enter(each)) {
                runs.add(self.clearAndRebuildTenant(projection, each));
            }
        }
        return runs;
    }

    /** One tenant's clear and rebuild, in a transaction of its own; called by {@link #clearAndRebuild}. */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public String clearAndRebuildTenant(String projection, String tenant) {
        String runId = act(() -> {
            registry.byName(Arguments.projection(projection, registry)).clear();
            return projections.rebuild(projection, tenant);
        });
        record("clear-and-rebuild", projection, tenant, null, "run " + runId);
        return runId;
    }

    /** Suspends {@code projection} with a reason: probed, and lifted when a probe succeeds or on "Resume". */
    public void suspend(String projection, String reason) {
        act(() -> {
            projections.suspend(projection, reason);
            return null;
        });
        record("suspend", projection, null, null, reason);
    }

    public void pause(String projection) {
        act(() -> {
            projections.pause(projection);
            return null;
        });
        record("pause", projection, null, null, null);
    }

    public void resume(String projection) {
        act(() -> {
            projections.resume(projection);
            return null;
        });
        record("resume", projection, null, null, null);
    }

    /**
     * Deletes the marks of a projection that no instance deploys any more (no {@code projection_instance} row
     * newer than 3 x sweep interval, checked in the delete itself); returns how many.
     */
    public int purge(String projection) {
        if (projection == null || projection.isBlank()) {
            throw new ActionRefused("purge needs a projection name, was " + projection, null);
        }
        if (registry.isKnown(projection)) {
            throw new ActionRefused("projection " + projection + " is deployed here: its marks are not purged", null);
        }
        int purged = sql("purge the marks of " + projection, c -> resources.store().actions().purgeOrphaned(c,
                projection, resources.clock().instant(), resources.settings().sweepInterval().multipliedBy(3)));
        record("purge", projection, null, null, purged + " marks");
        return purged;
    }

    private <T> T act(Supplier<T> action) {
        try {
            return action.get();
        } catch (IllegalArgumentException | IllegalStateException | UnsupportedOperationException e) {
            throw new ActionRefused(e.getMessage(), e);
        }
    }

    private void record(String action, String projection, String tenant, String id, String detail) {
        String user = context.getCallerPrincipal().getName();
        sql("write the audit of " + action, c -> {
            audit.record(c, AuditEntry.of(resources.clock().instant(), user, action, projection, tenant, id, detail));
            return null;
        });
    }

    private <T> T sql(String what, Sql.Work<T> work) {
        return resources.sql().call(what, work);
    }
}
