package dev.projections.ops;

import dev.projections.MarkKey;
import dev.projections.Projection;
import dev.projections.RebuildProgress;
import dev.projections.RebuildScope;
import dev.projections.TenantScope;
import dev.projections.Verifiable;
import dev.projections.refresh.ProjectionCatalog;
import dev.projections.refresh.RebuildPlan;
import dev.projections.refresh.RebuildStepper;
import dev.projections.refresh.WakeUpSignals;
import dev.projections.store.RebuildHistory;
import dev.projections.store.RebuildPartition;
import dev.projections.store.RebuildRun;
import dev.projections.store.RebuildRuns;
import dev.projections.store.Tables;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Starting, cancelling and reading background rebuild runs (docs/contract.md §7), for one tenant or, once here, for
 * every tenant the application's {@code TenantDirectory} lists. A start checks the projection, the scope and the
 * partitions and reads the partition bounds inside the tenant's scope before anything is written; what it started is
 * announced to {@code madeDue}.
 */
public final class RebuildOperations {

    /** The runs the caller's transaction has started so far; outside a transaction an empty set nobody keeps. */
    @FunctionalInterface
    public interface StartedRuns {
        Set<String> inThisTransaction();
    }

    private final Sql sql;
    private final RebuildRuns runs;
    private final RebuildHistory history;
    private final RebuildStepper stepper;
    private final Clock clock;
    private final ProjectionCatalog catalog;
    private final TenantScope tenantScope;
    private final Supplier<List<String>> tenantDirectory;
    private final StartedRuns started;
    private final Runnable madeDue;
    private final WakeUpSignals signals;

    /** @param tenantDirectory the application's tenants, or {@code null} when it has no {@code TenantDirectory} */
    public RebuildOperations(Sql sql, Tables store, RebuildStepper stepper, Clock clock, ProjectionCatalog catalog,
                             TenantScope tenantScope, Supplier<List<String>> tenantDirectory, StartedRuns started,
                             Runnable madeDue, WakeUpSignals signals) {
        this.sql = sql;
        this.runs = store.rebuildRuns();
        this.history = store.rebuildHistory();
        this.stepper = stepper;
        this.clock = clock;
        this.catalog = catalog;
        this.tenantScope = tenantScope;
        this.tenantDirectory = tenantDirectory;
        this.started = started;
        this.madeDue = madeDue;
        this.signals = signals;
    }

    /** Starts a run of {@code scope} in {@code partitions} for {@code tenant} ({@code ""} for none); its run id. */
    public String start(String projection, String tenant, RebuildScope scope, int partitions, String by) {
        return start(RebuildRun.REBUILD, rebuildable(projection, scope, partitions, "rebuilt"), projection, tenant,
                scope, partitions, by);
    }

    /**
     * Starts a verification of {@code scope} in {@code partitions} for {@code tenant} (docs/design.md D57): a run
     * that checks its ids with the projection's {@link Verifiable#drifted} and marks only those that drifted; its run
     * id. Refused, before anything is written, for a projection that does not implement {@code Verifiable} or cannot
     * list the scope's ids, and while a rebuild or a verification of the projection and tenant runs.
     */
    public String verify(String projection, String tenant, RebuildScope scope, int partitions, String by) {
        return start(RebuildRun.VERIFY, verifiable(projection, scope, partitions), projection, tenant, scope,
                partitions, by);
    }

    private Projection verifiable(String projection, RebuildScope scope, int partitions) {
        Projection bean = rebuildable(projection, scope, partitions, "verified");
        if (!(bean instanceof Verifiable)) {
            throw new UnsupportedOperationException("projection " + projection + " cannot be verified: implement "
                    + "dev.projections.Verifiable (drifted(ids)) beside Projection");
        }
        return bean;
    }

    private String start(String kind, Projection bean, String projection, String tenant, RebuildScope scope,
                         int partitions, String by) {
        if (tenant == null) {
            throw new IllegalArgumentException("tenant must not be null (use \"\" for none), projection " + projection);
        }
        String checkedTenant = MarkKey.checkedTenant(tenant);
        List<String> bounds;
        try (TenantScope.Entered ignored = checkedTenant.isEmpty() ? () -> { } : tenantScope.enter(checkedTenant)) {
            RebuildPlan.probe(bean, scope);
            bounds = RebuildPlan.bounds(bean, scope, partitions);
        }
        String runId = sql.call("start a " + (RebuildRun.VERIFY.equals(kind) ? "verification" : "rebuild") + " of "
                + projection, c -> {
            String id = runs.start(c, kind, projection, checkedTenant, scope, bounds, by, clock.instant());
            signals.rebuildStarted(c); // the other instances step it once it committed
            return id;
        });
        started.inThisTransaction().add(runId);
        madeDue.run();
        return runId;
    }

    /**
     * {@code projection}'s bean, if it can rebuild {@code scope} in {@code partitions}; otherwise refused naming why,
     * before anything is read or written.
     */
    private Projection rebuildable(String projection, RebuildScope scope, int partitions, String done) {
        Projection bean = catalog.byName(UnknownProjection.requireKnown(projection, catalog));
        if (!Rebuildable.implementsIds(bean)) {
            throw new UnsupportedOperationException("projection " + projection + " cannot be " + done + ": implement "
                    + "Projection.ids(after, limit) to list its ids in order");
        }
        RebuildPlan.check(bean, scope, partitions);
        if ((!scope.isEverything() || partitions > 1) && !Rebuildable.implementsScopedIds(bean)) {
            throw new UnsupportedOperationException("projection " + projection + " lists rebuild scopes but does not "
                    + "implement Projection.ids(after, limit, scope), so it cannot run " + scope);
        }
        return bean;
    }

    /**
     * One run per tenant of the {@code TenantDirectory}, in its order; their run ids. The projection, scope and
     * partitions are checked first, so a bad request is refused even when the directory lists no tenant.
     */
    public List<String> startForEveryTenant(String projection, RebuildScope scope, int partitions, String by) {
        rebuildable(projection, scope, partitions, "rebuilt");
        return tenants().stream().map(tenant -> start(projection, tenant, scope, partitions, by)).toList();
    }

    /** As {@link #startForEveryTenant}, verifications. */
    public List<String> verifyEveryTenant(String projection, RebuildScope scope, int partitions, String by) {
        verifiable(projection, scope, partitions);
        return tenants().stream().map(tenant -> verify(projection, tenant, scope, partitions, by)).toList();
    }

    /** The tenants of the application's {@code TenantDirectory}; without one, refused saying what is missing. */
    public List<String> tenants() {
        if (tenantDirectory == null) {
            throw new IllegalStateException("a rebuild of every tenant needs a TenantDirectory bean listing the tenants");
        }
        return List.copyOf(tenantDirectory.get());
    }

    /** Whether the application lists its tenants, so "every tenant" means them rather than the tenant {@code ""}. */
    public boolean hasTenantDirectory() {
        return tenantDirectory != null;
    }

    /** Cancels a running run, committed on its own before this returns; its rebuild marks are deleted afterwards. */
    public void cancel(String runId, String by) {
        cancel(runId, by, connection -> null);
    }

    /** As {@link #cancel(String, String)}, with {@code alongside} committed in the cancel's transaction, or neither. */
    public void cancel(String runId, String by, dev.projections.refresh.Transactions.Work<?> alongside) {
        RebuildProgress run = progress(runId); // names an unknown run, before anything is written
        if (started.inThisTransaction().contains(runId)) {
            // the cancel commits on its own, and would wait for (or not see) a run this transaction has not committed
            throw new IllegalStateException("rebuild run " + runId + " of " + run.projection() + " was started in "
                    + "this transaction: cancel it once the transaction committed");
        }
        if (!stepper.cancel(runId, by, alongside)) {
            throw new IllegalStateException("rebuild run " + runId + " of " + run.projection() + " is "
                    + progress(runId).state() + ", not running: there is nothing to cancel");
        }
    }

    public List<RebuildProgress> history(String projection, int limit) {
        if (limit < 1 || limit > 1000) {
            throw new IllegalArgumentException("limit must be 1..1000, was " + limit);
        }
        return sql.call("read the rebuild history", c -> history.history(c, projection, limit, clock.instant()));
    }

    public RebuildProgress progress(String runId) {
        if (runId == null) {
            throw new IllegalArgumentException("runId must not be null");
        }
        return sql.call("read rebuild run " + runId, c -> history.progress(c, runId, clock.instant()))
                .orElseThrow(() -> new IllegalArgumentException("no rebuild run \"" + runId + "\""
                        + (catalog.names().contains(runId) ? "; for a projection's latest run use latestRebuild(\""
                        + runId + "\")" : "")));
    }

    /** A run by its id, if there is one: a link may name a run that never was, which is no error to report. */
    public Optional<RebuildProgress> find(String runId) {
        return runId == null ? Optional.empty()
                : sql.call("read rebuild run " + runId, c -> history.progress(c, runId, clock.instant()));
    }

    /** A run's partitions: ranges, cursors, leases; none for an unknown run. */
    public List<RebuildPartition> partitions(String runId) {
        return sql.call("read the partitions of rebuild run " + runId, c -> history.partitions(c, runId));
    }

    /** The latest run of {@code projection} for {@code tenant}. */
    public Optional<RebuildProgress> latest(String projection, String tenant) {
        UnknownProjection.requireKnown(projection, catalog);
        String checkedTenant = MarkKey.checkedTenant(tenant);
        return sql.call("read the latest rebuild of " + projection,
                c -> history.latest(c, projection, checkedTenant, clock.instant()));
    }
}
