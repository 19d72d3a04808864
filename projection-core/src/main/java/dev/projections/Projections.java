package dev.projections;

import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.time.Duration;
import java.util.Optional;

/**
 * The application's facade, an application-scoped CDI bean (not an EJB: an EJB would wrap the
 * {@link IllegalArgumentException}s below and mark the caller's transaction for rollback).
 * <p>
 * Bad arguments — an unknown projection, a {@code null}, a blank id, an id over 200 characters or with control
 * characters, a tenant over 64 characters — get an {@link IllegalArgumentException} naming the bad value and
 * listing the known projections; nothing is written.
 */
public interface Projections {

    /** The longest entity id a mark may have ({@link MarkKey#MAX_ID_LENGTH}). */
    int MAX_ID_LENGTH = MarkKey.MAX_ID_LENGTH;
    /** The longest tenant id a mark may have ({@link MarkKey#MAX_TENANT_LENGTH}). */
    int MAX_TENANT_LENGTH = MarkKey.MAX_TENANT_LENGTH;

    /**
     * Marks {@code id} of {@code projection} dirty in the caller's tenant. Inside a JTA transaction the mark
     * joins it (written at commit, gone on rollback); outside one it is written and refreshed at once.
     */
    void markDirty(String projection, String id);

    /** The same for several ids, written in one go. */
    void markDirty(String projection, Collection<String> ids);

    /** Marks waiting for {@code projection}, all tenants, including those backing off. */
    long pending(String projection);

    /** Marks of {@code projection} whose refreshes failed ({@code attempts > 0}), all tenants; parked ones included. */
    long failing(String projection);

    /** Parked marks of {@code projection}, all tenants: failed for good, waiting for an operator (docs/contract.md §6). */
    long parked(String projection);

    /**
     * Makes the selected parked marks due now and returns how many. {@code attempts} is kept: with
     * {@code projection.max-attempts} set, one more failure parks the mark again at once, rather than burning a
     * whole new budget of retries on a cause that is not fixed.
     */
    int resumeParked(ParkedSelection selection);

    /**
     * Deletes the selected parked marks and returns how many: their read-model rows are left as the last
     * successful refresh wrote them. A change recorded later marks the key again as usual.
     */
    int skipParked(ParkedSelection selection);

    /** Up to {@code limit} failing marks of {@code projection}, the next to be retried first. */
    List<FailedRefresh> failures(String projection, int limit);

    /**
     * Makes every failing mark of {@code projection} due now and returns how many; parked marks stay parked (see
     * {@link #resumeParked}). {@code attempts} is kept, so a new failure continues the backoff where it was.
     */
    int retryFailed(String projection);

    /**
     * The same for one mark, parked or not (a parked one is resumed); an {@link IllegalArgumentException} when that
     * key has no failing mark.
     */
    void retry(String projection, String tenant, String id);

    /**
     * Suspends {@code projection} on every instance with a reason, as the engine does by itself when its refreshes
     * fail across many keys (docs/contract.md §6): like a pause, but a probe refresh every {@code probe-interval}
     * lifts it once one succeeds. {@link #resume} lifts it at once.
     */
    void suspend(String projection, String reason);

    /** Stops refreshing {@code projection}'s marks on every instance; marks keep accumulating. */
    void pause(String projection);

    /** Restarts refreshing {@code projection}'s marks on every instance. */
    void resume(String projection);

    /** Whether {@code projection} is paused. */
    boolean isPaused(String projection);

    /**
     * Starts a background rebuild of {@code projection} for the caller's tenant and returns its run id at once.
     * An {@link UnsupportedOperationException} when the projection does not implement {@code ids}; an
     * {@link IllegalStateException} when a rebuild of it for that tenant is already running.
     */
    String rebuild(String projection);

    /** The same for {@code tenant} ({@code ""} for none). */
    String rebuild(String projection, String tenant);

    /**
     * A rebuild of {@code tenant}'s ids within {@code scope}, split into {@code partitions} (1..64) stepped in parallel
     * by the drainers of every instance (docs/contract.md §7). An {@link UnsupportedOperationException} names what
     * the projection does not support (see {@link Projection#rebuildScopes()}); an {@link IllegalArgumentException}
     * names a bad argument.
     */
    String rebuild(String projection, String tenant, RebuildScope scope, int partitions);

    /**
     * A verification of {@code tenant}'s ids within {@code scope}, in {@code partitions} (docs/design.md D57): a run
     * like a rebuild's that checks each page of ids with the projection's {@link Verifiable#drifted} and marks only the
     * keys that drifted, which the drainers then refresh; its run id, at once. Follow it with
     * {@link #rebuildProgress} ({@link RebuildProgress#VERIFY}: {@code checked}, {@code marked} for the drifted keys,
     * {@code repaired()}) and cancel it with {@link #cancelRebuild}. An {@link UnsupportedOperationException} when the
     * projection does not implement {@code Verifiable} or the scope, an {@link IllegalStateException} while a rebuild
     * or a verification of the projection and tenant runs.
     */
    String verify(String projection, String tenant, RebuildScope scope, int partitions);

    /**
     * Cancels a running run: its partitions stop, its rebuild marks are deleted (marks of live changes stay). An
     * {@link IllegalStateException} when it is no longer running, an {@link IllegalArgumentException} for an
     * unknown run id.
     */
    void cancelRebuild(String runId);

    /** The newest {@code limit} (1..1000) runs of {@code projection}, or of every projection when {@code null}. */
    List<RebuildProgress> rebuildHistory(String projection, int limit);

    /** One run per tenant of the {@link TenantDirectory}; returns their run ids. */
    List<String> rebuildAllTenants(String projection);

    /** The progress of a run; an {@link IllegalArgumentException} for an unknown run id. */
    RebuildProgress rebuildProgress(String runId);

    /** The caller's tenant's latest run of {@code projection}, if any. */
    Optional<RebuildProgress> latestRebuild(String projection);

    /**
     * Opens a capture of the marks this thread's transactions commit until it is closed, for a read-your-writes wait
     * (docs/contract.md §14): see {@link CommitCapture}. No statement is added to any commit.
     */
    CommitCapture captureCommits();

    /**
     * Waits, outside any transaction, until every key of {@code token} was refreshed — by this instance or another —
     * by a refresh that read the commit, or until {@code timeout} (at most {@code projection.await-max-timeout})
     * passed, and says which. A timeout is an answer, never an exception; an {@link IllegalArgumentException} for a
     * {@code null} token or a negative timeout.
     */
    RefreshWait await(RefreshToken token, Duration timeout);

    /**
     * For tests (docs/contract.md §14 "Test support"): waits, outside any transaction, until {@code projections} —
     * every deployed one when none is named — have no mark left at all (none waiting, leased, backing off or parked),
     * or {@code timeout} (at most {@code projection.await-max-timeout}) passed. Says which, and what was left. An
     * {@link IllegalArgumentException} names an unknown projection or a negative timeout; an
     * {@link IllegalStateException} inside a transaction (its own marks are not committed yet).
     */
    IdleWait awaitIdle(Duration timeout, String... projections);

    /**
     * For tests: makes the failing marks (not the parked ones) of {@code projections} — every deployed one when none
     * is named — due now, as {@link #retryFailed} does, and has this instance's drainers look at their due marks (after
     * the caller's transaction commits, if there is one); returns how many marks it made due. An
     * {@link IllegalStateException} where the engine is off ({@code projection.enabled} or
     * {@code projection.auto-refresh} false: drive the engine with {@code EngineSteps} there). On a web node
     * ({@code projection.processing=false}) the marks are made due and the processing instances take them.
     */
    int refreshNow(String... projections);

    /** Every deployed projection's status, for an overview. */
    List<ProjectionStatus> overview();

    /** Health of the engine on this instance, for {@code /projections/health}. */
    EngineHealth health();

    /** The projections this deployment knows. */
    Set<String> names();
}
