package dev.projections.ee;

import dev.projections.EngineHealth;
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
 * bean of its own: marking, failing marks, pause, rebuild runs, the overview.
 */
@ApplicationScoped
public class ProjectionsFacade implements Projections {

    @Inject
    ExplicitMarking marking;

    @Inject
    FailingMarks failing;

    @Inject
    ParkedMarks parked;

    @Inject
    PauseSwitch pauses;

    @Inject
    RebuildRuns rebuilds;

    @Inject
    EngineOverview overview;

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
        return failing.pending(projection);
    }

    @Override
    public long failing(String projection) {
        return failing.failing(projection);
    }

    @Override
    public List<FailedRefresh> failures(String projection, int limit) {
        return failing.failures(projection, limit);
    }

    @Override
    public void suspend(String projection, String reason) {
        pauses.suspend(projection, reason);
    }

    @Override
    public long parked(String projection) {
        return parked.parked(projection);
    }

    @Override
    public int resumeParked(dev.projections.ParkedSelection selection) {
        return parked.resume(selection);
    }

    @Override
    public int skipParked(dev.projections.ParkedSelection selection) {
        return parked.skip(selection).size();
    }

    @Override
    public int retryFailed(String projection) {
        return failing.retryFailed(projection);
    }

    @Override
    public void retry(String projection, String tenant, String id) {
        failing.retry(projection, tenant, id);
    }

    @Override
    public void pause(String projection) {
        pauses.pause(projection);
    }

    @Override
    public void resume(String projection) {
        pauses.resume(projection);
    }

    @Override
    public boolean isPaused(String projection) {
        return pauses.isPaused(projection);
    }

    @Override
    public String rebuild(String projection) {
        return rebuilds.rebuild(projection);
    }

    @Override
    public String rebuild(String projection, String tenant) {
        return rebuilds.rebuild(projection, tenant);
    }

    @Override
    public String rebuild(String projection, String tenant, RebuildScope scope, int partitions) {
        return rebuilds.rebuild(projection, tenant, scope, partitions);
    }

    @Override
    public void cancelRebuild(String runId) {
        rebuilds.cancel(runId);
    }

    @Override
    public List<RebuildProgress> rebuildHistory(String projection, int limit) {
        return rebuilds.history(projection, limit);
    }

    @Override
    public List<String> rebuildAllTenants(String projection) {
        return rebuilds.rebuildAllTenants(projection);
    }

    @Override
    public RebuildProgress rebuildProgress(String runId) {
        return rebuilds.progress(runId);
    }

    @Override
    public Optional<RebuildProgress> latestRebuild(String projection) {
        return rebuilds.latest(projection);
    }

    @Override
    public List<ProjectionStatus> overview() {
        return overview.overview();
    }

    @Override
    public EngineHealth health() {
        return overview.health();
    }

    @Override
    public Set<String> names() {
        return registry.names();
    }
}
