package dev.projections.ee.admin;

import dev.projections.ParkedSelection;
import dev.projections.Projection;
import dev.projections.RebuildScope;
import dev.projections.TenantScope;
import dev.projections.ee.ProjectionRegistry;
import dev.projections.ops.AuditedRebuilds;
import dev.projections.ops.MarkOperations;
import dev.projections.ops.PauseOperations;
import dev.projections.ops.Rebuildable;
import dev.projections.ops.UnknownProjection;
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
    ProjectionRegistry registry;

    /* The engine's, built at this bean's first call (the producers are EngineRuntime's). */

    @Inject
    MarkOperations marks;

    @Inject
    PauseOperations pauses;

    @Inject
    AuditedRebuilds rebuilds;

    @Inject
    Instance<TenantScope> tenantScope;

    @Resource
    SessionContext context;

    /** Makes one failing mark due now, keeping its attempts. */
    public void retry(String projection, String tenant, String id) {
        act(() -> {
            marks.retry(projection, tenant, id, caller());
            return null;
        });
    }

    /** Makes every failing mark of {@code projection} due now; returns how many. */
    public int retryFailed(String projection) {
        return act(() -> marks.retryFailed(projection, caller()));
    }

    /**
     * Makes the failing marks of {@code projection} due now, of one tenant ({@code null}: every tenant) and with an
     * error starting with {@code errorPrefix} ({@code null}: any); returns how many.
     */
    public int retryFailed(String projection, String tenant, String errorPrefix) {
        return act(() -> marks.retryFailed(projection, tenant, errorPrefix, caller()));
    }

    /** Makes the selected parked marks due now, attempts kept; returns how many. */
    public int resumeParked(ParkedSelection selection) {
        return act(() -> marks.resumeParked(selection, caller()));
    }

    /**
     * Deletes the selected parked marks, leaving their read-model rows as they are; returns how many. The audit
     * keeps each skipped key with its last error, in the action's transaction.
     */
    public int skipParked(ParkedSelection selection) {
        return act(() -> marks.skipParked(selection, caller()));
    }

    /** Starts a rebuild of {@code projection} for one tenant ({@code ""} for none); returns its run id. */
    public String rebuild(String projection, String tenant) {
        return act(() -> rebuilds.rebuild(caller(), projection, tenant, RebuildScope.everything(), 1));
    }

    /**
     * Starts a rebuild of {@code scope} in {@code partitions}, for one tenant ({@code ""} for none) or, with
     * {@code null}, for every tenant of the application's {@code TenantDirectory}; returns the run ids.
     */
    public List<String> rebuild(String projection, String tenant, RebuildScope scope, int partitions) {
        return act(() -> tenant == null ? rebuilds.rebuildEveryTenant(caller(), projection, scope, partitions)
                : List.of(rebuilds.rebuild(caller(), projection, tenant, scope, partitions)));
    }

    /**
     * Starts a verification of {@code scope} in {@code partitions} (docs/design.md D57), for one tenant ({@code ""} for
     * none) or, with {@code null}, for every tenant of the application's {@code TenantDirectory}; returns the run ids.
     */
    public List<String> verify(String projection, String tenant, RebuildScope scope, int partitions) {
        return act(() -> tenant == null ? rebuilds.verifyEveryTenant(caller(), projection, scope, partitions)
                : List.of(rebuilds.verify(caller(), projection, tenant, scope, partitions)));
    }

    /** Cancels a running rebuild run, committed on its own before this returns (docs/contract.md §7); its rebuild marks are deleted afterwards, live ones stay. */
    public void cancelRebuild(String runId) {
        act(() -> {
            rebuilds.cancelRebuild(caller(), runId);
            return null;
        });
    }

    /** Starts a rebuild for every tenant of the application's {@code TenantDirectory}. */
    public List<String> rebuildAllTenants(String projection) {
        return act(() -> rebuilds.rebuildEveryTenant(caller(), projection, RebuildScope.everything(), 1));
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
        Projection bean = act(() -> registry.byName(UnknownProjection.requireKnown(projection, registry)));
        if (!Rebuildable.implementsClear(bean) || !Rebuildable.implementsIds(bean)) {
            throw new ActionRefused("projection " + projection + " does not offer clear() and ids(): it cannot be "
                    + "cleared and rebuilt", null);
        }
        List<String> tenants = tenant != null ? List.of(tenant) : act(() -> rebuilds.everyTenant());
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
        return act(() -> rebuilds.clearAndRebuild(caller(), projection, tenant));
    }

    /** Suspends {@code projection} with a reason: probed, and lifted when a probe succeeds or on "Resume". */
    public void suspend(String projection, String reason) {
        act(() -> {
            pauses.suspend(projection, reason, caller());
            return null;
        });
    }

    public void pause(String projection) {
        act(() -> {
            pauses.pause(projection, caller());
            return null;
        });
    }

    public void resume(String projection) {
        act(() -> {
            pauses.resume(projection, caller());
            return null;
        });
    }

    /**
     * Deletes the marks of a projection that no instance deploys any more (no {@code projection_instance} row
     * newer than 3 x sweep interval, checked in the delete itself); returns how many.
     */
    public int purge(String projection) {
        act(() -> {
            marks.checkPurgeable(projection);
            return null;
        });
        // what the database does to the delete is its failure, not a refusal: the container logs it
        return marks.purge(projection, caller());
    }

    /** What the engine refuses reaches the console with its message, and rolls the action and its audit back. */
    private <T> T act(Supplier<T> action) {
        try {
            return action.get();
        } catch (IllegalArgumentException | IllegalStateException | UnsupportedOperationException e) {
            throw new ActionRefused(e.getMessage(), e);
        }
    }

    private String caller() {
        return context.getCallerPrincipal().getName();
    }
}
