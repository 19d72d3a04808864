package dev.projections.ee.admin;

import dev.projections.ProjectionStatus;
import dev.projections.Projections;
import dev.projections.RebuildProgress;
import dev.projections.RebuildScope;
import dev.projections.TenantDirectory;
import dev.projections.ee.EngineResources;
import dev.projections.ee.EngineRuntime;
import dev.projections.ee.ProjectionRegistry;
import dev.projections.ops.Rebuildable;
import dev.projections.ops.Sql;
import dev.projections.inspect.AuditEntry;
import dev.projections.inspect.AuditFilter;
import dev.projections.inspect.AuditLog;
import dev.projections.inspect.CappedCount;
import dev.projections.inspect.InstanceReport;
import dev.projections.inspect.Instances;
import dev.projections.inspect.ErrorGroups;
import dev.projections.inspect.MarkFilter;
import dev.projections.inspect.MarkLists;
import dev.projections.inspect.MarkPage;
import dev.projections.inspect.MarkRow;
import dev.projections.inspect.OrphanedMarks;
import dev.projections.inspect.PageCursor;
import dev.projections.inspect.PartitionProgress;
import dev.projections.inspect.TenantCounts;
import dev.projections.inspect.LagSummary;
import dev.projections.inspect.TrendMinute;
import dev.projections.refresh.ClockSkewRule;
import dev.projections.store.NodeReport;
import dev.projections.store.RebuildPartition;
import dev.projections.store.TrendPoint;
import dev.projections.trend.LagHistograms;
import jakarta.annotation.security.DeclareRoles;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Set;

/**
 * What the console shows (docs/contract.md §12), for {@value ConsoleRoles#VIEWER} and {@value ConsoleRoles#ADMIN}: the
 * overview, keyset pages of marks, capped counts, per-tenant counts, orphaned marks and the audit log. It answers in
 * API and {@code inspect} types only, mapping the store's records here, so that the pages never read the store.
 */
@Stateless
@DeclareRoles({ConsoleRoles.ADMIN, ConsoleRoles.VIEWER})
@RolesAllowed({ConsoleRoles.ADMIN, ConsoleRoles.VIEWER})
@TransactionAttribute(TransactionAttributeType.SUPPORTS)
public class ConsoleReads {

    /** Counts above this show as "10,000+". */
    public static final int COUNT_CAP = 10_000;
    /** Lines of the per-tenant table. */
    public static final int TENANT_LINES = 1_000;
    /** Error groups shown above a failing list. */
    public static final int TOP_ERRORS = 10;
    /** Failing marks whose errors are grouped: enough to see the causes, bounded so the cost does not grow. */
    public static final int ERROR_SCAN = 10_000;
    /** Lines of a search by id. */
    public static final int FOUND_LINES = 200;
    /** Audit entries one call reads at most. */
    public static final int AUDIT_PAGE = 500;

    @Inject
    Projections projections;

    @Inject
    EngineResources resources;

    @Inject
    EngineRuntime runtime;

    @Inject
    ProjectionRegistry registry;

    @Inject
    Instance<TenantDirectory> tenantDirectory;

    private final MarkLists lists = new MarkLists();
    private final AuditLog audit = new AuditLog();

    public List<ProjectionStatus> overview() {
        return projections.overview();
    }

    /** Completed refreshes of each deployed projection in the last minute, on this instance. */
    public java.util.Map<String, Long> refreshesPerMinute() {
        java.time.Instant now = java.time.Instant.now();
        java.util.Map<String, Long> rates = new java.util.TreeMap<>();
        for (String name : registry.names()) {
            rates.put(name, resources.stats().refreshRate().lastMinute(name, now));
        }
        return rates;
    }

    public Set<String> projectionNames() {
        return registry.names();
    }

    /** The tenants of the application's {@code TenantDirectory}, empty without one. */
    public List<String> tenants() {
        return tenantDirectory.isResolvable() ? List.copyOf(tenantDirectory.get().tenants()) : List.of();
    }

    /** Whether the application has a {@code TenantDirectory}: "every tenant" then means its tenants, else tenant "". */
    public boolean hasTenantDirectory() {
        return tenantDirectory.isResolvable();
    }

    public boolean rebuildable(String projection) {
        return registry.isKnown(projection) && Rebuildable.implementsIds(registry.byName(projection));
    }

    /** The progress of a rebuild run. */
    public RebuildProgress rebuildProgress(String runId) {
        return projections.rebuildProgress(runId);
    }

    /** A run by its id, if there is one (a link may name a run that never was: not an error to log). */
    public java.util.Optional<RebuildProgress> findRebuild(String runId) {
        return runtime.operations().rebuilds().find(runId);
    }

    /** The newest rebuild runs, of one projection or ({@code null}) of all. */
    public List<RebuildProgress> rebuildHistory(String projection, int limit) {
        return projections.rebuildHistory(projection, limit);
    }

    /** A run's partitions: ranges, cursors, leases. */
    public List<PartitionProgress> rebuildPartitions(String runId) {
        return runtime.operations().rebuilds().partitions(runId).stream().map(ConsoleReads::progress).toList();
    }

    private static PartitionProgress progress(RebuildPartition p) {
        return new PartitionProgress(p.number(), p.after(), p.upTo(), p.cursor(), p.exhausted(), p.marked(), p.held(),
                p.leaseUntil(), p.takeovers());
    }

    /**
     * The scope kinds a scoped rebuild of {@code projection} may use, as the Rebuild… panel offers them; empty when it
     * offers whole rebuilds only (or lists kinds but does not implement the scoped {@code ids}).
     */
    public Set<RebuildScope.Kind> rebuildScopes(String projection) {
        if (!registry.isKnown(projection) || !Rebuildable.implementsScopedIds(registry.byName(projection))) {
            return Set.of();
        }
        return registry.byName(projection).rebuildScopes();
    }

    /** The filter names {@code projection}'s scoped rebuild understands. */
    public Set<String> rebuildFilters(String projection) {
        return rebuildScopes(projection).isEmpty() ? Set.of() : registry.byName(projection).rebuildFilters();
    }

    public MarkPage page(MarkFilter filter, PageCursor cursor, boolean forward, int size) {
        return sql("list the marks of " + filter.projection(),
                c -> lists.page(c, filter, resources.clock().instant(), cursor, forward, size));
    }

    public CappedCount count(MarkFilter filter) {
        return sql("count the marks of " + filter.projection(),
                c -> lists.count(c, filter, resources.clock().instant(), COUNT_CAP));
    }

    /** The top errors of {@code filter}'s failing marks, read from at most {@value #ERROR_SCAN} of them. */
    public ErrorGroups topErrors(MarkFilter filter) {
        return sql("group the errors of " + filter.projection(),
                c -> lists.topErrors(c, filter, resources.clock().instant(), TOP_ERRORS, ERROR_SCAN));
    }

    /** Every mark of entity {@code id} across projections and tenants, at most {@value #FOUND_LINES}. */
    public List<MarkRow> findById(String id) {
        return sql("find the marks of id " + id, c -> lists.findById(c, id, FOUND_LINES));
    }

    public List<TenantCounts> byTenant() {
        return sql("count marks per tenant", c -> lists.byTenant(c, TENANT_LINES));
    }

    /** Projections with marks that no instance deployed within 3 x sweep interval (docs/contract.md §11). */
    public List<OrphanedMarks> orphaned() {
        return sql("list orphaned marks", c -> lists.orphaned(c, resources.clock().instant(),
                resources.settings().sweepInterval().multipliedBy(3)));
    }

    /** {@code projection}'s minutes from {@code from} to {@code to}, across the instances (docs/contract.md §12, trends). */
    public List<TrendMinute> trend(String projection, java.time.Instant from, java.time.Instant to) {
        return minutes(sql("read the trends of " + projection,
                c -> resources.store().trends().read(c, projection, from, to)));
    }

    /** Every projection's minutes from {@code from} to {@code to}, across the instances, by projection. */
    public java.util.Map<String, List<TrendMinute>> trends(java.time.Instant from, java.time.Instant to) {
        java.util.Map<String, List<TrendMinute>> byProjection = new java.util.LinkedHashMap<>();
        sql("read the trends", c -> resources.store().trends().readAll(c, from, to))
                .forEach((projection, points) -> byProjection.put(projection, minutes(points)));
        return byProjection;
    }

    /**
     * The lag of {@code projection}'s refreshes of live marks in the trend minutes from {@code from} to {@code to},
     * every instance's added up (docs/contract.md §12).
     */
    public LagSummary lag(String projection, java.time.Instant from, java.time.Instant to) {
        return LagHistograms.summarize(sql("read the lag of " + projection,
                c -> resources.store().trends().lags(c, projection, from, to)));
    }

    /** Every projection's lag from {@code from} to {@code to}, in one read; a projection without one is absent. */
    public java.util.Map<String, LagSummary> lags(java.time.Instant from, java.time.Instant to) {
        java.util.Map<String, LagSummary> byProjection = new java.util.LinkedHashMap<>();
        sql("read the lags", c -> resources.store().trends().lags(c, from, to))
                .forEach((projection, texts) -> byProjection.put(projection, LagHistograms.summarize(texts)));
        return byProjection;
    }

    private static List<TrendMinute> minutes(List<TrendPoint> points) {
        return points.stream().map(p -> new TrendMinute(p.minute(), p.pending(), p.dueNow(), p.failing(), p.refreshes(),
                p.failures(), p.p99Micros(), p.instances())).toList();
    }

    /** The engine's clock, which the trends are written by: their windows must be cut by it too. */
    public java.time.Instant now() {
        return resources.clock().instant();
    }

    /**
     * Every instance that reported, by name, with the projections each deployed in the last 3 sweep intervals, and the
     * clock limit this instance's lease time sets (which the heartbeat warns by).
     */
    public Instances instances() {
        java.time.Instant now = resources.clock().instant();
        java.time.Duration live = resources.settings().sweepInterval().multipliedBy(3);
        java.time.Duration skewLimit = new ClockSkewRule(registry.settings().shortestLeaseTime()).limit();
        return sql("read the instances", c -> new Instances(
                resources.store().nodes().list(c).stream().map(ConsoleReads::report).toList(),
                resources.store().instances().deployed(c, now.minus(live)), now, live, resources.instanceId(),
                skewLimit));
    }

    private static InstanceReport report(NodeReport node) {
        return new InstanceReport(node.instanceId(), node.startedAt(), node.lastSeen(), node.workers(),
                node.drainersBusy(), node.claimsHeld(), node.refreshesPerMinute(), node.clockSkew());
    }

    /**
     * The settings of {@code projection} in force on this instance, each with where it came from
     * ({@code projection.<name>.<key>}, its code, the global key, the default).
     */
    public dev.projections.config.ProjectionSettings projectionSettings(String projection) {
        return registry.settings().of(projection);
    }

    /** {@code projection}'s {@code freshness-objective} in force, {@code null} when it has none. */
    public java.time.Duration freshnessObjective(String projection) {
        return projectionSettings(projection).freshnessObjective();
    }

    /** Where the global {@code key} was set ({@code system property projection.batch-size}, …), or "default". */
    public String settingOrigin(String key) {
        dev.projections.config.SettingSource.Found found = resources.settingSource().find(key);
        return found == null ? dev.projections.config.ProjectionSettings.DEFAULT_ORIGIN : found.origin();
    }

    /** The settings in force on the instance that serves the console. */
    public dev.projections.config.Settings settings() {
        return resources.settings();
    }

    public List<AuditEntry> audit(Long beforeId, int limit) {
        return audit(AuditFilter.ALL, beforeId, limit);
    }

    /**
     * Up to {@code limit} (at most {@value #AUDIT_PAGE}) of {@code filter}'s audit entries older than {@code beforeId},
     * newest first: the audit page and, page by page, its CSV export, both under this bean's role check.
     */
    public List<AuditEntry> audit(AuditFilter filter, Long beforeId, int limit) {
        return sql("read the audit log", c -> audit.page(c, filter, beforeId, Math.max(1, Math.min(limit, AUDIT_PAGE))));
    }

    private <T> T sql(String what, Sql.Work<T> work) {
        return resources.sql().call(what, work);
    }
}
