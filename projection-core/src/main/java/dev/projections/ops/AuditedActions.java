package dev.projections.ops;

import dev.projections.FailedRefresh;
import dev.projections.ParkedSelection;
import dev.projections.RebuildProgress;
import dev.projections.RebuildScope;
import dev.projections.inspect.AuditEntry;
import dev.projections.inspect.AuditLog;
import dev.projections.refresh.ProjectionCatalog;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;

/**
 * An operator's actions (docs/contract.md §12), each with its {@code projection_audit} row: the operation runs, then
 * its row is written in the same transaction, the caller's, so the two commit together and a refused action leaves
 * neither. Who acted is the caller's name, given with each call; what the row says is decided here, once, for the
 * console and any other face an operator acts through.
 */
public final class AuditedActions {

    private final Sql sql;
    private final MarkOperations marks;
    private final PauseOperations pauses;
    private final RebuildOperations rebuilds;
    private final ProjectionCatalog catalog;
    private final Clock clock;
    private final Duration orphanedAfter;
    private final AuditLog audit = new AuditLog();

    /** @param orphanedAfter how long no instance deployed a projection before its marks may be purged */
    public AuditedActions(Sql sql, MarkOperations marks, PauseOperations pauses, RebuildOperations rebuilds,
                          ProjectionCatalog catalog, Clock clock, Duration orphanedAfter) {
        this.sql = sql;
        this.marks = marks;
        this.pauses = pauses;
        this.rebuilds = rebuilds;
        this.catalog = catalog;
        this.clock = clock;
        this.orphanedAfter = orphanedAfter;
    }

    /** Makes one failing mark due now, keeping its attempts. */
    public void retry(String by, String projection, String tenant, String id) {
        marks.retry(projection, tenant, id);
        record(by, "retry", projection, tenant, id, null);
    }

    /** Makes every failing mark of {@code projection} due now; returns how many. */
    public int retryFailed(String by, String projection) {
        return retryFailed(by, projection, null, null);
    }

    /**
     * Makes the failing marks of {@code projection} due now, of one tenant ({@code null}: every tenant) and with an
     * error starting with {@code errorPrefix} ({@code null}: any); returns how many.
     */
    public int retryFailed(String by, String projection, String tenant, String errorPrefix) {
        int retried = marks.retryFailed(projection, tenant, errorPrefix);
        record(by, "retry-failed", projection, tenant, null, retried + " marks"
                + (errorPrefix == null ? "" : " with error \"" + errorPrefix + "…\""));
        return retried;
    }

    /** Makes the selected parked marks due now, attempts kept; returns how many. */
    public int resumeParked(String by, ParkedSelection selection) {
        int resumed = marks.resumeParked(selection);
        record(by, "resume-parked", selection.projection(), selection.tenant(), selection.entityId(),
                describe(selection, resumed));
        return resumed;
    }

    /** Deletes the selected parked marks; the audit keeps each skipped key with its last error. Returns how many. */
    public int skipParked(String by, ParkedSelection selection) {
        List<FailedRefresh> skipped = marks.skipParked(selection);
        for (FailedRefresh mark : skipped) {
            record(by, "skip-parked", selection.projection(), mark.tenant(), mark.id(),
                    "after " + mark.attempts() + " attempts: " + mark.lastError());
        }
        return skipped.size();
    }

    /**
     * Starts a rebuild of {@code scope} in {@code partitions}, for one tenant ({@code ""} for none) or, with
     * {@code null}, for every tenant of the application's {@code TenantDirectory}; returns the run ids.
     */
    public List<String> rebuild(String by, String projection, String tenant, RebuildScope scope, int partitions) {
        List<String> runs = tenant != null ? List.of(rebuilds.start(projection, tenant, scope, partitions, by))
                : rebuilds.startForEveryTenant(projection, scope, partitions, by);
        record(by, tenant == null ? "rebuild-all-tenants" : "rebuild", projection, tenant, null,
                scope + (partitions > 1 ? " in " + partitions + " partitions" : "") + ", runs " + runs);
        return runs;
    }

    /**
     * Starts a verification of {@code scope} in {@code partitions} (docs/design.md D57), for one tenant ({@code ""}
     * for none) or, with {@code null}, for every tenant of the application's {@code TenantDirectory}; its run ids.
     */
    public List<String> verify(String by, String projection, String tenant, RebuildScope scope, int partitions) {
        List<String> runs = tenant != null ? List.of(rebuilds.verify(projection, tenant, scope, partitions, by))
                : rebuilds.verifyEveryTenant(projection, scope, partitions, by);
        record(by, tenant == null ? "verify-all-tenants" : "verify", projection, tenant, null,
                scope + (partitions > 1 ? " in " + partitions + " partitions" : "") + ", runs " + runs);
        return runs;
    }

    /** Starts a whole rebuild of {@code projection} for one tenant ({@code ""} for none); returns its run id. */
    public String rebuild(String by, String projection, String tenant) {
        String runId = rebuilds.start(projection, tenant, RebuildScope.everything(), 1, by);
        record(by, "rebuild", projection, tenant, null, "run " + runId);
        return runId;
    }

    /** Starts a whole rebuild for every tenant of the application's {@code TenantDirectory}. */
    public List<String> rebuildAllTenants(String by, String projection) {
        List<String> runs = rebuilds.startForEveryTenant(projection, RebuildScope.everything(), 1, by);
        record(by, "rebuild-all-tenants", projection, null, null, "runs " + runs);
        return runs;
    }

    /** The tenants "every tenant" means: the application's {@code TenantDirectory}'s, or the tenant {@code ""} without one. */
    public List<String> everyTenant() {
        return rebuilds.hasTenantDirectory() ? rebuilds.tenants() : List.of("");
    }

    /**
     * {@code projection}'s {@code clear()} and a whole rebuild of {@code tenant}, in the caller's transaction, which
     * runs inside the tenant's scope: when a rebuild of the tenant is already running, the start fails and the clear
     * rolls back with it. Returns the run id.
     */
    public String clearAndRebuild(String by, String projection, String tenant) {
        catalog.byName(UnknownProjection.requireKnown(projection, catalog)).clear();
        String runId = rebuilds.start(projection, tenant, RebuildScope.everything(), 1, by);
        record(by, "clear-and-rebuild", projection, tenant, null, "run " + runId);
        return runId;
    }

    /**
     * Cancels a running rebuild run, committed on its own before this returns (docs/contract.md §7), its audit row in
     * the same transaction: the cancel cannot commit without it, nor be rolled back by the caller's transaction after.
     */
    public void cancelRebuild(String by, String runId) {
        RebuildProgress run = rebuilds.progress(runId);
        AuditEntry entry = AuditEntry.of(clock.instant(), by, "cancel-rebuild", run.projection(), run.tenant(), null,
                "run " + runId + " (" + run.scope() + "), " + run.marked() + " marked");
        rebuilds.cancel(runId, by, connection -> {
            try {
                audit.record(connection, entry);
            } catch (SQLException e) {
                throw new AuditNotWritten("could not write the audit of cancel-rebuild: " + e.getMessage(), e);
            }
            return null;
        });
    }

    /** Suspends {@code projection} with a reason: probed, and lifted when a probe succeeds or on "Resume". */
    public void suspend(String by, String projection, String reason) {
        pauses.suspend(projection, reason, by);
        record(by, "suspend", projection, null, null, reason);
    }

    public void pause(String by, String projection) {
        pauses.pause(projection, by);
        record(by, "pause", projection, null, null, null);
    }

    public void resume(String by, String projection) {
        pauses.resume(projection, by);
        record(by, "resume", projection, null, null, null);
    }

    /** Refuses a purge of {@code projection} before any SQL runs (see {@link MarkOperations#checkPurgeable}). */
    public void checkPurgeable(String projection) {
        marks.checkPurgeable(projection);
    }

    /** Deletes the marks of a projection no instance deploys any more; returns how many. */
    public int purge(String by, String projection) {
        int purged = marks.purgeOrphaned(projection, orphanedAfter);
        record(by, "purge", projection, null, null, purged + " marks");
        return purged;
    }

    private static String describe(ParkedSelection selection, int count) {
        return count + " marks" + (selection.errorPrefix() == null ? "" : " with error \"" + selection.errorPrefix() + "…\"");
    }

    /**
     * Writes the action's row. When the database refuses it, the action is not refused: the failure is the
     * database's, {@link AuditNotWritten}, which rolls the action back with it and reaches the server's log as an
     * error rather than the operator as a refusal.
     */
    private void record(String by, String action, String projection, String tenant, String id, String detail) {
        try {
            sql.call("write the audit of " + action, c -> {
                audit.record(c, AuditEntry.of(clock.instant(), by, action, projection, tenant, id, detail));
                return null;
            });
        } catch (IllegalStateException e) {
            throw new AuditNotWritten(e.getMessage(), e);
        }
    }

    /** The audit row of an action could not be written: the action must not commit without it. */
    public static final class AuditNotWritten extends RuntimeException {
        AuditNotWritten(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
