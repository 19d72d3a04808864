package dev.projections.console;

import dev.projections.ProjectionStatus;
import dev.projections.RebuildProgress;
import dev.projections.RebuildScope;
import dev.projections.ee.admin.ConsoleAdmin;
import dev.projections.ee.admin.ConsoleReads;
import dev.projections.inspect.OrphanedMarks;
import dev.projections.store.TrendPoint;
import jakarta.inject.Inject;
import jakarta.faces.view.ViewScoped;
import jakarta.inject.Named;
import java.io.Serializable;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.Locale;

/**
 * The overview (docs/contract.md §12): every deployed projection with its marks, failures, pause and rebuild, reloaded every
 * few seconds; the actions on a projection, rebuilds behind a confirmation step; the progress of the rebuilds
 * started here; marks of projections no instance deploys, with purge.
 */
@Named("projectionsOverview")
@ViewScoped
public class Overview implements Serializable {


    /** One projection's line (a class with getters: Jakarta EL 5 does not read record components). */
    public static final class Row implements Serializable {
        private final ProjectionStatus status;
        private final boolean rebuildable;
        private final boolean offersClear;
        private final Instant now;
        private final long perMinute;
        private String dueTrend = "";
        private String rateTrend = "";

        public Row(ProjectionStatus status, boolean rebuildable, boolean offersClear, long perMinute, Instant now) {
            this.status = status;
            this.perMinute = perMinute;
            this.rebuildable = rebuildable;
            this.offersClear = offersClear;
            this.now = now;
        }

        public String getProjection() {
            return status.projection();
        }

        /** The last hour's due marks, a small server-drawn SVG (no script). */
        public String getDueTrend() {
            return dueTrend;
        }

        /** The last hour's refreshes per minute across instances, a small server-drawn SVG. */
        public String getRateTrend() {
            return rateTrend;
        }

        Row withTrends(TrendCharts charts) {
            dueTrend = charts.due(TrendChart.spark());
            rateTrend = charts.rate(TrendChart.spark());
            return this;
        }

        public String getPending() {
            return Format.number(status.pending());
        }

        public String getDueNow() {
            return Format.number(status.dueNow());
        }

        public String getParked() {
            return Format.number(status.parked());
        }

        public boolean isHasParked() {
            return status.parked() > 0;
        }

        public String getFailing() {
            return Format.number(status.failing());
        }

        public String getPerMinute() {
            return Format.number(perMinute);
        }

        public boolean isHasFailing() {
            return status.failing() > 0;
        }

        /** "Retry 3 failing": it names the failing marks it makes due, parked ones stay parked. */
        public String getRetryLabel() {
            return Text.of("overview.retry-failed", status.failing() - status.parked());
        }

        public boolean isHasRetryable() {
            return status.failing() > status.parked();
        }

        public String getOldestDueAge() {
            return status.dueNow() == 0 ? "–" : Format.age(status.oldestDueAge());
        }

        public String getOldestDueTitle() {
            return status.dueNow() == 0 ? Text.of("overview.oldest-due.none")
                    : Text.of("overview.oldest-due.since", Format.exact(now.minus(status.oldestDueAge())));
        }

        public String getLastError() {
            return status.lastError() == null ? "" : status.lastError();
        }

        public boolean isPaused() {
            return status.paused();
        }

        /** "paused" by an operator, "suspended" by failures (its reason on hover), or "running". */
        public String getRunState() {
            return status.suspendedReason() != null ? Text.of("overview.state.suspended")
                    : status.paused() ? Text.of("overview.state.paused") : Text.of("overview.state.running");
        }

        public String getSuspendedReason() {
            return status.suspendedReason() == null ? "" : status.suspendedReason();
        }

        public boolean isSuspended() {
            return status.suspendedReason() != null;
        }

        public boolean isRebuildable() {
            return rebuildable;
        }

        public boolean isOffersClear() {
            return offersClear;
        }

        public String getRebuild() {
            return describe(status.latestRebuild(), now);
        }

        public String getRebuildTitle() {
            return title(status.latestRebuild());
        }
    }

    /** What the confirmation panel asks about. */
    public enum Pending { REBUILD, CLEAR_AND_REBUILD, PURGE }

    @Inject
    ConsoleReads reads;

    @Inject
    ConsoleAdmin admin;

    private List<Row> rows;
    private List<OrphanedMarks> orphans;
    private Instant checkedAt;
    private final List<String> runIds = new ArrayList<>();
    private List<RebuildLine> runs = List.of();

    private Pending pending;
    private Set<RebuildScope.Kind> offeredScopes = Set.of();
    private List<String> offeredFilters = List.of();
    private String scopeFrom;
    private String scopeTo;
    private String scopeSince;
    private String scopeFilterName;
    private String scopeFilterValue;
    private int partitions = 1;
    private String pendingProjection;
    private String rebuildTenant = TenantChoice.ALL;

    public List<Row> getRows() {
        if (rows == null) {
            reload();
        }
        return rows;
    }

    public List<OrphanedMarks> getOrphans() {
        if (orphans == null) {
            reload();
        }
        return orphans;
    }

    public List<RebuildLine> getRuns() {
        return runs;
    }

    public boolean isNothingWaiting() {
        return getRows().stream().allMatch(row -> row.status.pending() == 0);
    }

    /** The projections suspended for failing across many keys (or by hand), for the list with their reasons. */
    public List<Row> getSuspended() {
        return getRows().stream().filter(Row::isSuspended).toList();
    }

    public String getCheckedAtIso() {
        return checkedAt == null ? "" : checkedAt.toString();
    }

    public String getCheckedAt() {
        return Format.exact(checkedAt);
    }

    /** Trend rows arrive a few times a minute (each instance's sweep): the page's updates read them every 30 s. */
    static final java.time.Duration TRENDS_READ_EVERY = java.time.Duration.ofSeconds(30);

    private transient java.util.Map<String, List<TrendPoint>> trends;
    private Instant trendsAt;

    /** Every projection's last hour, in one read, again only when the last read is 30 s old. */
    private java.util.Map<String, List<TrendPoint>> lastHour() {
        Instant engineNow = reads.now();
        if (trends == null || trendsAt.plus(TRENDS_READ_EVERY).isBefore(engineNow) || engineNow.isBefore(trendsAt)) {
            trends = reads.trends(TrendWindow.start(TrendWindow.Span.HOUR, engineNow), engineNow);
            trendsAt = engineNow;
        }
        return trends;
    }

    /** The "Refresh" button and the page's timer: reads everything again. */
    public void reload() {
        Instant now = Instant.now();
        java.util.Map<String, Long> rates = reads.refreshesPerMinute();
        java.util.Map<String, List<TrendPoint>> hour = lastHour();
        rows = reads.overview().stream().map(status -> new Row(status, reads.rebuildable(status.projection()),
                admin.offersClear(status.projection()), rates.getOrDefault(status.projection(), 0L), now)
                .withTrends(new TrendCharts(status.projection(), TrendWindow.of(TrendWindow.Span.HOUR, trendsAt,
                        hour.getOrDefault(status.projection(), List.of()))))).toList();
        orphans = reads.orphaned();
        runs = runIds.stream().map(id -> new RebuildLine(reads.rebuildProgress(id), now)).toList();
        checkedAt = now;
    }

    public void pause(String projection) {
        Messages.run(() -> admin.pause(projection), Text.of("overview.paused", projection));
        reload();
    }

    public void resume(String projection) {
        Messages.run(() -> admin.resume(projection), Text.of("overview.resumed", projection));
        reload();
    }

    public void retryFailed(String projection) {
        Messages.run(() -> admin.retryFailed(projection), retried -> Text.of("action.retried", retried, projection));
        reload();
    }

    public void askRebuild(String projection) {
        ask(Pending.REBUILD, projection);
    }

    public void askClearAndRebuild(String projection) {
        ask(Pending.CLEAR_AND_REBUILD, projection);
    }

    public void askPurge(String projection) {
        ask(Pending.PURGE, projection);
    }

    private void ask(Pending what, String projection) {
        pending = what;
        pendingProjection = projection;
        rebuildTenant = getTenantChoices().get(0);
        scopeFrom = null;
        scopeTo = null;
        scopeSince = null;
        scopeFilterName = null;
        scopeFilterValue = null;
        partitions = 1;
        offeredScopes = what == Pending.REBUILD ? reads.rebuildScopes(projection) : Set.of();
        offeredFilters = what == Pending.REBUILD ? List.copyOf(new TreeSet<>(reads.rebuildFilters(projection))) : List.of();
    }

    /** The scope the Rebuild… panel's fields describe; a clear error naming the field that cannot be read. */
    RebuildScope scope() {
        Instant since = null;
        if (scopeSince != null && !scopeSince.isBlank()) {
            since = ScopeInput.instant(scopeSince);
        }
        String filter = scopeFilterName == null || scopeFilterName.isBlank() ? null
                : scopeFilterName + "=" + (scopeFilterValue == null ? "" : scopeFilterValue.trim());
        return new RebuildScope(trimmed(scopeFrom), trimmed(scopeTo), since, filter);
    }

    private static String trimmed(String value) {
        return value == null ? null : value.trim();
    }

    public void cancel() {
        pending = null;
        pendingProjection = null;
    }

    /** The confirmation's "Yes" button: does what the panel asked about. */
    public void confirm() {
        if (pending == null) {
            return;
        }
        String projection = pendingProjection;
        switch (pending) {
            case REBUILD -> Messages.run(() -> {
                RebuildScope scope = scope();
                if (!scope.isEverything() || partitions != 1) {
                    return admin.rebuild(projection, TenantChoice.isAll(rebuildTenant) ? null
                            : TenantChoice.tenant(rebuildTenant), scope, partitions);
                }
                return TenantChoice.isAll(rebuildTenant) ? admin.rebuildAllTenants(projection)
                        : List.of(admin.rebuild(projection, TenantChoice.tenant(rebuildTenant)));
            }, this::started);
            case CLEAR_AND_REBUILD -> Messages.run(() -> admin.clearAndRebuild(projection,
                    TenantChoice.isAll(rebuildTenant) ? null : TenantChoice.tenant(rebuildTenant)), this::started);
            case PURGE -> Messages.run(() -> admin.purge(projection),
                    purged -> Text.of("overview.purged", purged, projection));
        }
        cancel();
        reload();
    }

    private String started(List<String> ids) {
        runIds.addAll(ids);
        return Text.of("overview.rebuild-started", ids.size());
    }

    public boolean isConfirming() {
        return pending != null;
    }

    /** Rebuilds ask which tenants; a purge does not. */
    public boolean isConfirmingRebuild() {
        return pending == Pending.REBUILD || pending == Pending.CLEAR_AND_REBUILD;
    }

    public String getQuestion() {
        if (pending == null) {
            return "";
        }
        return switch (pending) {
            case REBUILD -> Text.of("overview.ask.rebuild", pendingProjection);
            case CLEAR_AND_REBUILD -> Text.of("overview.ask.clear-rebuild", pendingProjection);
            case PURGE -> Text.of("overview.ask.purge", pendingProjection);
        };
    }

    /** "All tenants" and each tenant of the application's {@code TenantDirectory}; only "(no tenant)" without one. */
    public List<String> getTenantChoices() {
        return TenantChoice.choices(reads.tenants());
    }

    public String tenantLabel(String choice) {
        return TenantChoice.label(choice);
    }

    public String getRebuildTenant() {
        return rebuildTenant;
    }

    public void setRebuildTenant(String rebuildTenant) {
        this.rebuildTenant = rebuildTenant;
    }

    /** The Rebuild… panel offers a scope only where the projection lists the kind. */
    public boolean isOffersIdRange() {
        return pending == Pending.REBUILD && offeredScopes.contains(RebuildScope.Kind.ID_RANGE);
    }

    public boolean isOffersChangedSince() {
        return pending == Pending.REBUILD && offeredScopes.contains(RebuildScope.Kind.CHANGED_SINCE);
    }

    public boolean isOffersFilter() {
        return pending == Pending.REBUILD && offeredScopes.contains(RebuildScope.Kind.FILTER) && !offeredFilters.isEmpty();
    }

    public List<String> getFilterNames() {
        return offeredFilters;
    }

    public String getScopeFrom() {
        return scopeFrom;
    }

    public void setScopeFrom(String scopeFrom) {
        this.scopeFrom = scopeFrom;
    }

    public String getScopeTo() {
        return scopeTo;
    }

    public void setScopeTo(String scopeTo) {
        this.scopeTo = scopeTo;
    }

    public String getScopeSince() {
        return scopeSince;
    }

    public void setScopeSince(String scopeSince) {
        this.scopeSince = scopeSince;
    }

    public String getScopeFilterName() {
        return scopeFilterName;
    }

    public void setScopeFilterName(String scopeFilterName) {
        this.scopeFilterName = scopeFilterName;
    }

    public String getScopeFilterValue() {
        return scopeFilterValue;
    }

    public void setScopeFilterValue(String scopeFilterValue) {
        this.scopeFilterValue = scopeFilterValue;
    }

    public int getPartitions() {
        return partitions;
    }

    public void setPartitions(int partitions) {
        this.partitions = partitions;
    }

    static String describe(RebuildProgress run, Instant now) {
        if (run == null) {
            return "–";
        }
        if (RebuildProgress.RUNNING.equals(run.state())) {
            return Text.of("overview.rebuild.running", run.marked(), run.remaining());
        }
        return Text.of("overview.rebuild.ended", stateOf(run), Format.relative(run.finishedAt(), now));
    }

    static String stateOf(RebuildProgress run) {
        return RebuildLine.stateOf(run);
    }

    static String title(RebuildProgress run) {
        return run == null ? "" : new RebuildLine(run, Instant.now()).getTitle();
    }
}
