package dev.projections.ee;

import dev.projections.CommitCapture;
import dev.projections.EngineHealth;
import dev.projections.FailedRefresh;
import dev.projections.IdleWait;
import dev.projections.ProjectionStatus;
import dev.projections.Projections;
import dev.projections.RebuildProgress;
import dev.projections.RebuildScope;
import dev.projections.RefreshToken;
import dev.projections.RefreshWait;
import dev.projections.engine.Foundation;
import dev.projections.ops.UnknownProjection;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import java.security.Principal;
import java.time.Duration;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The {@link Projections} facade: a CDI bean, not an EJB, so a bad argument reaches the caller as the
 * {@code IllegalArgumentException} it is, and does not mark the caller's transaction for rollback. Each job is a
 * part of its own: marking, the operations on marks and pauses (core's {@code ops}), rebuild runs, the overview.
 * <p>
 * The operations on marks (retry, resume, skip, {@code refreshNow}) run in a transaction of their own, committed
 * before they return, as a rebuild's cancel does: in the caller's transaction they would hold the marks' rows until
 * its commit, which upserts the transaction's own marks then, in key order — two key-ordered sequences in one
 * transaction, a deadlock with any commit or rebuild step that marks keys of both (engine review E2). A pause, resume
 * or suspension joins the caller's transaction, or runs in one of its own without one, so that the change and its
 * audit row commit together; a bad argument, refused before any SQL, leaves the caller's transaction as it was.
 */
@ApplicationScoped
public class ProjectionsFacade implements Projections {

    @Inject
    ExplicitMarking marking;

    /** The container's built-in bean for the caller, whom pauses and suspensions record. */
    @Inject
    Principal callerPrincipal;

    @Inject
    MarkSinkBean sink;


    @Inject
    ProjectionRegistry registry;

    @Inject
    Foundation foundation;

    @Inject
    EngineRuntime runtime;

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
        return operations().marks().pending(projection);
    }

    @Override
    public long failing(String projection) {
        return operations().marks().failing(projection);
    }

    @Override
    public List<FailedRefresh> failures(String projection, int limit) {
        return operations().marks().failures(projection, limit);
    }

    @Override
    @Transactional(value = Transactional.TxType.REQUIRED, dontRollbackOn = IllegalArgumentException.class)
    public void suspend(String projection, String reason) {
        operations().pauses().suspend(projection, reason, caller());
    }

    @Override
    public long parked(String projection) {
        return operations().marks().parked(projection);
    }

    @Override
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public int resumeParked(dev.projections.ParkedSelection selection) {
        return operations().marks().resumeParked(selection, caller());
    }

    @Override
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public int skipParked(dev.projections.ParkedSelection selection) {
        return operations().marks().skipParked(selection, caller());
    }

    @Override
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public int retryFailed(String projection) {
        return operations().marks().retryFailed(projection, caller());
    }

    @Override
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public void retry(String projection, String tenant, String id) {
        operations().marks().retry(projection, tenant, id, caller());
    }

    @Override
    @Transactional(value = Transactional.TxType.REQUIRED, dontRollbackOn = IllegalArgumentException.class)
    public void pause(String projection) {
        operations().pauses().pause(projection, caller());
    }

    @Override
    @Transactional(value = Transactional.TxType.REQUIRED, dontRollbackOn = IllegalArgumentException.class)
    public void resume(String projection) {
        operations().pauses().resume(projection, caller());
    }

    @Override
    public boolean isPaused(String projection) {
        return operations().pauses().isPaused(projection);
    }

    @Override
    public String rebuild(String projection) {
        UnknownProjection.requireKnown(projection, registry);
        return rebuild(projection, sink.explicitTenant("rebuild(\"" + projection + "\")"));
    }

    @Override
    public String rebuild(String projection, String tenant) {
        return rebuild(projection, tenant, RebuildScope.everything(), 1);
    }

    @Override
    public String rebuild(String projection, String tenant, RebuildScope scope, int partitions) {
        return operations().audited().rebuild(caller(), projection, tenant, scope, partitions);
    }

    @Override
    public String verify(String projection, String tenant, RebuildScope scope, int partitions) {
        return operations().audited().verify(caller(), projection, tenant, scope, partitions);
    }

    @Override
    public void cancelRebuild(String runId) {
        operations().audited().cancelRebuild(caller(), runId);
    }

    @Override
    public List<RebuildProgress> rebuildHistory(String projection, int limit) {
        return operations().rebuilds().history(projection, limit);
    }

    @Override
    public List<String> rebuildAllTenants(String projection) {
        return operations().audited().rebuildEveryTenant(caller(), projection, RebuildScope.everything(), 1);
    }

    @Override
    public RebuildProgress rebuildProgress(String runId) {
        return operations().rebuilds().progress(runId);
    }

    @Override
    public Optional<RebuildProgress> latestRebuild(String projection) {
        UnknownProjection.requireKnown(projection, registry);
        return operations().rebuilds().latest(projection, sink.currentTenant());
    }

    @Override
    public List<ProjectionStatus> overview() {
        return operations().overview().overview(sink.currentTenant());
    }

    @Override
    public EngineHealth health() {
        return operations().overview().health();
    }

    @Override
    public Set<String> names() {
        return registry.names();
    }

    @Override
    public CommitCapture captureCommits() {
        return foundation.waits().capture();
    }

    @Override
    public RefreshWait await(RefreshToken token, Duration timeout) {
        if (token == null) {
            throw new IllegalArgumentException("token must not be null");
        }
        return foundation.waits().await(token, timeout);
    }

    @Override
    public IdleWait awaitIdle(Duration timeout, String... projections) {
        Set<String> names = operations().catchUp().namedOrAll(projections);
        if (foundation.waits().inTransaction()) {
            throw new IllegalStateException("awaitIdle waits for committed marks: call it outside a transaction");
        }
        return operations().catchUp().awaitIdle(names, timeout);
    }

    @Override
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public int refreshNow(String... projections) {
        return operations().catchUp().refreshNow(operations().catchUp().namedOrAll(projections), caller());
    }

    private dev.projections.ops.Operations operations() {
        return runtime.operations();
    }

    private String caller() {
        return CallerName.of(callerPrincipal);
    }
}
