package dev.projections.ops;

import dev.projections.RebuildProgress;
import dev.projections.RebuildScope;
import dev.projections.inspect.AuditEntry;
import dev.projections.inspect.AuditLog;
import dev.projections.refresh.ProjectionCatalog;
import java.sql.SQLException;
import java.time.Clock;
import java.util.List;

/**
 * The rebuild actions (docs/contract.md §7, §12), each with its {@code projection_audit} row: the start runs, then its
 * row is written in the same transaction, the caller's, so the two commit together and a refused action leaves
 * neither; a cancel commits on its own with its row. One row for a start of every tenant names all its runs. Every
 * face calls these (the console, the management API, the application's {@code Projections}); the actions on marks and
 * pauses write their rows themselves ({@link MarkOperations}, {@link PauseOperations}).
 */
public final class AuditedRebuilds {

    private final Sql sql;
    private final RebuildOperations rebuilds;
    private final ProjectionCatalog catalog;
    private final Clock clock;
    private final AuditLog audit = new AuditLog();

    public AuditedRebuilds(Sql sql, RebuildOperations rebuilds, ProjectionCatalog catalog, Clock clock) {
        this.sql = sql;
        this.rebuilds = rebuilds;
        this.catalog = catalog;
        this.clock = clock;
    }

    /** Starts a rebuild of {@code scope} in {@code partitions} for {@code tenant} ({@code ""} for none); its run id. */
    public String rebuild(String by, String projection, String tenant, RebuildScope scope, int partitions) {
        return recorded(by, "rebuild", projection, tenant, scope, partitions,
                rebuilds.start(projection, tenant, scope, partitions, by));
    }

    /**
     * Starts a rebuild of {@code scope} in {@code partitions} for every tenant of the application's
     * {@code TenantDirectory}, one row naming every run; their run ids.
     */
    public List<String> rebuildEveryTenant(String by, String projection, RebuildScope scope, int partitions) {
        return recorded(by, "rebuild-all-tenants", projection, null, scope, partitions,
                rebuilds.startForEveryTenant(projection, scope, partitions, by));
    }

    /** Starts a verification of {@code scope} in {@code partitions} (docs/design.md D57) for {@code tenant}; its run id. */
    public String verify(String by, String projection, String tenant, RebuildScope scope, int partitions) {
        return recorded(by, "verify", projection, tenant, scope, partitions,
                rebuilds.verify(projection, tenant, scope, partitions, by));
    }

    /** As {@link #rebuildEveryTenant}, verifications. */
    public List<String> verifyEveryTenant(String by, String projection, RebuildScope scope, int partitions) {
        return recorded(by, "verify-all-tenants", projection, null, scope, partitions,
                rebuilds.verifyEveryTenant(projection, scope, partitions, by));
    }

    /** {@code runId} once its start's row is written: "everything, run …". */
    private String recorded(String by, String action, String projection, String tenant, RebuildScope scope,
                            int partitions, String runId) {
        record(by, action, projection, tenant, null, describe(scope, partitions) + ", run " + runId);
        return runId;
    }

    /** {@code runs} once their start's one row is written: "everything, runs [...]". */
    private List<String> recorded(String by, String action, String projection, String tenant, RebuildScope scope,
                                  int partitions, List<String> runs) {
        record(by, action, projection, tenant, null, describe(scope, partitions) + ", runs " + runs);
        return runs;
    }

    private static String describe(RebuildScope scope, int partitions) {
        return scope + (partitions > 1 ? " in " + partitions + " partitions" : "");
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
