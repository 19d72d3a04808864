package dev.projections.ee;

import dev.projections.EngineHealth;
import dev.projections.FailedRefresh;
import dev.projections.MarkKey;
import dev.projections.Projection;
import dev.projections.Projections;
import dev.projections.RebuildProgress;
import dev.projections.refresh.DrainerOrigin;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Status;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/** The {@link Projections} facade. */
@ApplicationScoped
public class ProjectionsFacade implements Projections {

    @Inject
    EngineResources resources;

    @Inject
    ProjectionRegistry registry;

    @Inject
    MarkSinkBean sink;

    @Inject
    DrainerStarter starter;

    @Inject
    PauseState pauses;

    @Inject
    jakarta.enterprise.inject.Instance<dev.projections.TenantDirectory> tenantDirectory;

    private final dev.projections.store.RebuildStore rebuildStore = new dev.projections.store.RebuildStore();

    /** The container's built-in bean for the caller. */
    @Inject
    java.security.Principal callerPrincipal;

    @Resource
    TransactionSynchronizationRegistry transactions;

    @Override
    public void markDirty(String projection, String id) {
        markDirty(projection, java.util.Collections.singletonList(id));
    }

    @Override
    public void markDirty(String projection, Collection<String> ids) {
        List<MarkKey> keys = keysOf(projection, ids);
        if (keys.isEmpty()) {
            return;
        }
        int status = transactions.getTransactionStatus();
        switch (status) {
            case Status.STATUS_ACTIVE -> {
                ExplicitMarks.buffer(transactions, resources, sink, keys);
                return;
            }
            case Status.STATUS_MARKED_ROLLBACK, Status.STATUS_ROLLING_BACK, Status.STATUS_ROLLEDBACK -> {
                return; // joins the doomed transaction and goes with it: nothing written, nothing announced
            }
            case Status.STATUS_NO_TRANSACTION -> {
                // written at once, below
            }
            default -> throw new IllegalStateException("markDirty(\"" + projection + "\", …) called while the "
                    + "thread's transaction is " + statusName(status) + ": call it inside an active transaction, "
                    + "or outside any");
        }
        try (Connection connection = resources.dataSource().getConnection()) {
            sink.write(connection, keys);
        } catch (SQLException e) {
            throw new IllegalStateException("could not write marks " + keys + ": " + e.getMessage(), e);
        }
        sink.committed(Set.copyOf(keys));
    }

    private static String statusName(int status) {
        return switch (status) {
            case Status.STATUS_PREPARING -> "preparing";
            case Status.STATUS_PREPARED -> "prepared";
            case Status.STATUS_COMMITTING -> "committing";
            case Status.STATUS_COMMITTED -> "committed";
            default -> "in status " + status;
        };
    }

    private List<MarkKey> keysOf(String projection, Collection<String> ids) {
        ArgumentChecks.projection(projection, registry);
        if (ids == null) {
            throw new IllegalArgumentException("ids must not be null (projection " + projection + ")");
        }
        String tenant = ArgumentChecks.tenant(sink.explicitTenant("markDirty(\"" + projection + "\", …)"));
        TreeSet<MarkKey> keys = new TreeSet<>();
        for (String id : ids) {
            keys.add(new MarkKey(projection, tenant, ArgumentChecks.id(id, projection)));
        }
        return new ArrayList<>(keys);
    }

    @Override
    public long pending(String projection) {
        ArgumentChecks.projection(projection, registry);
        return read("count pending marks of " + projection, c -> resources.store().pending(c, projection));
    }

    @Override
    public long failing(String projection) {
        ArgumentChecks.projection(projection, registry);
        return read("count failing marks of " + projection, c -> resources.store().failing(c, projection));
    }

    @Override
    public List<FailedRefresh> failures(String projection, int limit) {
        ArgumentChecks.projection(projection, registry);
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be >= 1, was " + limit);
        }
        return read("list failing marks of " + projection, c -> resources.store().failures(c, projection, limit));
    }

    @Override
    public int retryFailed(String projection) {
        ArgumentChecks.projection(projection, registry);
        int retried = read("retry failing marks of " + projection,
                c -> resources.store().retryFailed(c, projection, resources.clock().instant()));
        if (retried > 0 && resources.settings().autoRefresh()) {
            startDrainerAfterCommit();
        }
        return retried;
    }

    @Override
    public void retry(String projection, String tenant, String id) {
        ArgumentChecks.projection(projection, registry);
        if (tenant == null) {
            throw new IllegalArgumentException("tenant must not be null (use \"\" for none), projection " + projection);
        }
        MarkKey key = new MarkKey(projection, ArgumentChecks.tenant(tenant), ArgumentChecks.id(id, projection));
        boolean retried = read("retry " + key, c -> resources.store().retry(c, key, resources.clock().instant()));
        if (!retried) {
            throw new IllegalArgumentException("no failing mark " + key + " to retry");
        }
        if (resources.settings().autoRefresh()) {
            startDrainerAfterCommit();
        }
    }

    /** Starts a drainer for work this call made due, after the caller's transaction commits if there is one. */
    private void startDrainerAfterCommit() {
        if (transactions.getTransactionStatus() == Status.STATUS_ACTIVE) {
            transactions.registerInterposedSynchronization(new jakarta.transaction.Synchronization() {
                @Override
                public void beforeCompletion() {
                }

                @Override
                public void afterCompletion(int status) {
                    if (status == Status.STATUS_COMMITTED) {
                        starter.startIfSlotFree(DrainerOrigin.SWEEP);
                    }
                }
            });
        } else {
            starter.startIfSlotFree(DrainerOrigin.SWEEP);
        }
    }

    private <T> T read(String what, SqlCalls.Work<T> call) {
        return SqlCalls.call(resources.dataSource(), what, call);
    }

    @Override
    public void pause(String projection) {
        setPaused(projection, true);
    }

    @Override
    public void resume(String projection) {
        setPaused(projection, false);
        if (resources.settings().autoRefresh()) {
            startDrainerAfterCommit();
        }
    }

    @Override
    public boolean isPaused(String projection) {
        ArgumentChecks.projection(projection, registry);
        return read("read the pause of " + projection, c -> resources.store().paused(c).contains(projection));
    }

    private void setPaused(String projection, boolean paused) {
        ArgumentChecks.projection(projection, registry);
        String user = caller();
        read((paused ? "pause " : "resume ") + projection, c -> {
            resources.store().setPaused(c, projection, paused, user, resources.clock().instant());
            return null;
        });
        pauses.invalidate();
    }

    private String caller() {
        try {
            String name = callerPrincipal.getName();
            return name == null || name.isBlank() ? "anonymous" : name;
        } catch (RuntimeException noSecurityContext) {
            return "anonymous";
        }
    }

    @Override
    public String rebuild(String projection) {
        ArgumentChecks.projection(projection, registry);
        return rebuild(projection, sink.explicitTenant("rebuild(\"" + projection + "\")"));
    }

    @Override
    public String rebuild(String projection, String tenant) {
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
        if (resources.settings().autoRefresh()) {
            startDrainerAfterCommit();
        }
        return runId;
    }

    @Override
    public List<String> rebuildAllTenants(String projection) {
        ArgumentChecks.projection(projection, registry);
        if (!tenantDirectory.isResolvable()) {
            throw new IllegalStateException("rebuildAllTenants needs a TenantDirectory bean listing the tenants");
        }
        return tenantDirectory.get().tenants().stream().map(tenant -> rebuild(projection, tenant)).toList();
    }

    @Override
    public RebuildProgress rebuildProgress(String runId) {
        if (runId == null) {
            throw new IllegalArgumentException("runId must not be null");
        }
        return read("read rebuild run " + runId, c -> rebuildStore.progress(c, runId, resources.clock().instant()))
                .orElseThrow(() -> new IllegalArgumentException("no rebuild run \"" + runId + "\""
                        + (registry.isKnown(runId) ? "; for a projection's latest run use latestRebuild(\"" + runId + "\")" : "")));
    }

    @Override
    public java.util.Optional<RebuildProgress> latestRebuild(String projection) {
        ArgumentChecks.projection(projection, registry);
        String tenant = ArgumentChecks.tenant(sink.currentTenant());
        return read("read the latest rebuild of " + projection,
                c -> rebuildStore.latest(c, projection, tenant, resources.clock().instant()));
    }

    @Override
    public List<dev.projections.ProjectionStatus> overview() {
        String tenant = ArgumentChecks.tenant(sink.currentTenant());
        return read("read the overview", c -> {
            Instant now = resources.clock().instant();
            java.util.Map<String, dev.projections.store.PendingStore.ProjectionCounts> counts =
                    resources.store().countsByProjection(c, now);
            Set<String> paused = resources.store().paused(c);
            List<dev.projections.ProjectionStatus> statuses = new java.util.ArrayList<>();
            for (String name : registry.names()) {
                var count = counts.getOrDefault(name,
                        new dev.projections.store.PendingStore.ProjectionCounts(0, 0, Duration.ZERO, 0, 0));
                statuses.add(new dev.projections.ProjectionStatus(name, count.pending(), count.dueNow(), count.failing(),
                        count.oldestDueAge(), count.failing() > 0 ? resources.store().lastError(c, name) : null,
                        paused.contains(name), rebuildStore.latest(c, name, tenant, now).orElse(null)));
            }
            return statuses;
        });
    }

    @Override
    public EngineHealth health() {
        Instant lastSweep = resources.stats().lastSweepAt();
        Duration stale = resources.settings().sweepInterval().multipliedBy(3);
        Instant sweepExpectedSince = lastSweep == null ? resources.stats().startedAt() : lastSweep;
        try (Connection connection = resources.dataSource().getConnection()) {
            Instant now = resources.clock().instant();
            Instant oldest = resources.store().oldestDue(connection, registry.names(), now);
            Duration oldestAge = oldest == null ? Duration.ZERO : Duration.between(oldest, now);
            Set<String> paused = resources.store().paused(connection);
            if (Duration.between(sweepExpectedSince, Instant.now()).compareTo(stale) > 0) {
                return new EngineHealth(false, lastSweep == null ? "no sweep has run since start-up"
                        : "the last sweep is older than 3 x projection.sweep-interval", lastSweep, oldestAge, paused);
            }
            return new EngineHealth(true, null, lastSweep, oldestAge, paused);
        } catch (SQLException e) {
            return new EngineHealth(false, "database unreachable: " + e.getMessage(), lastSweep, null, Set.of());
        }
    }

    @Override
    public Set<String> names() {
        return registry.names();
    }

}
