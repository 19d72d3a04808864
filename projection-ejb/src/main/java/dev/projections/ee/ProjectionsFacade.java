package dev.projections.ee;

import dev.projections.EngineHealth;
import dev.projections.ops.Arguments;
import dev.projections.FailedRefresh;
import dev.projections.ProjectionStatus;
import dev.projections.Projections;
import dev.projections.RebuildProgress;
import dev.projections.RebuildScope;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The {@link Projections} facade: a CDI bean, not an EJB, so a bad argument reaches the caller as the
 * {@code IllegalArgumentException} it is, and does not mark the caller's transaction for rollback. Each job is a
 * part of its own: marking, the operations on marks and pauses (core's {@code ops}), rebuild runs, the overview.
 */
@ApplicationScoped
public class ProjectionsFacade implements Projections {

    @Inject
    ExplicitMarking marking;

    @Inject
    Operations operations;

    /** The container's built-in bean for the caller, whom pauses and suspensions record. */
    @Inject
    java.security.Principal callerPrincipal;

    @Inject
    MarkSinkBean sink;


    @Inject
    ProjectionRegistry registry;

    @Override
    public void markDirty(String projection, String id) {
        marking.markDirty(projection, Collections.singletonList(id));
    }

    @Override
    public void markDirty(String projection, Collection<String> ids) {
        marking.markDirty(projection, ids);
    }

    @Override
    public long pending(String projection) {
        return operations.marks().pending(projection);
    }

    @Override
    public long failing(String projection) {
        return operations.marks().failing(projection);
    }

    @Override
    public List<FailedRefresh> failures(String projection, int limit) {
        return operations.marks().failures(projection, limit);
    }

    @Override
    public void suspend(String projection, String reason) {
        operations.pauses().suspend(projection, reason, caller());
    }

    @Override
    public long parked(String projection) {
        return operations.marks().parked(projection);
    }

    @Override
    public int resumeParked(dev.projections.ParkedSelection selection) {
        return operations.marks().resumeParked(selection);
    }

    @Override
    public int skipParked(dev.projections.ParkedSelection selection) {
        return operations.marks().skipParked(selection).size();
    }

    @Override
    public int retryFailed(String projection) {
        return operations.marks().retryFailed(projection);
    }

    @Override
    public void retry(String projection, String tenant, String id) {
        operations.marks().retry(projection, tenant, id);
    }

    @Override
    public void pause(String projection) {
        operations.pauses().pause(projection, caller());
    }

    @Override
    public void resume(String projection) {
        operations.pauses().resume(projection, caller());
    }

    @Override
    public boolean isPaused(String projection) {
        return operations.pauses().isPaused(projection);
    }

    @Override
    public String rebuild(String projection) {
        Arguments.projection(projection, registry);
        return rebuild(projection, sink.explicitTenant("rebuild(\"" + projection + "\")"));
    }

    @Override
    public String rebuild(String projection, String tenant) {
        return rebuild(projection, tenant, RebuildScope.everything(), 1);
    }

    @Override
    public String rebuild(String projection, String tenant, RebuildScope scope, int partitions) {
        return operations.rebuilds().start(projection, tenant, scope, partitions, caller());
    }

    @Override
    public void cancelRebuild(String runId) {
        operations.rebuilds().cancel(runId, caller());
    }

    @Override
    public List<RebuildProgress> rebuildHistory(String projection, int limit) {
        return operations.rebuilds().history(projection, limit);
    }

    @Override
    public List<String> rebuildAllTenants(String projection) {
        return operations.rebuilds().startForEveryTenant(projection, RebuildScope.everything(), 1, caller());
    }

    @Override
    public RebuildProgress rebuildProgress(String runId) {
        return operations.rebuilds().progress(runId);
    }

    @Override
    public Optional<RebuildProgress> latestRebuild(String projection) {
        Arguments.projection(projection, registry);
        return operations.rebuilds().latest(projection, sink.currentTenant());
    }

    @Override
    public List<ProjectionStatus> overview() {
        return operations.overview().overview(sink.currentTenant());
    }

    @Override
    public EngineHealth health() {
        return operations.overview().health();
    }

    @Override
    public Set<String> names() {
        return registry.names();
    }

    private String caller() {
        return CallerName.of(callerPrincipal);
    }
}
