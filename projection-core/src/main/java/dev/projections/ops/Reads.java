package dev.projections.ops;

import dev.projections.config.Settings;
import dev.projections.inspect.AuditEntry;
import dev.projections.inspect.AuditFilter;
import dev.projections.inspect.AuditLog;
import dev.projections.inspect.CappedCount;
import dev.projections.inspect.ErrorGroups;
import dev.projections.inspect.InstanceReport;
import dev.projections.inspect.Instances;
import dev.projections.inspect.LagSummary;
import dev.projections.inspect.MarkFilter;
import dev.projections.inspect.MarkLists;
import dev.projections.inspect.MarkPage;
import dev.projections.inspect.MarkRow;
import dev.projections.inspect.OrphanedMarks;
import dev.projections.inspect.PageCursor;
import dev.projections.inspect.PartitionProgress;
import dev.projections.inspect.TenantCounts;
import dev.projections.inspect.TrendMinute;
import dev.projections.refresh.ClockSkewRule;
import dev.projections.refresh.EngineStats;
import dev.projections.refresh.ProjectionCatalog;
import dev.projections.store.NodeReport;
import dev.projections.store.Tables;
import dev.projections.store.TrendPoint;
import dev.projections.trend.LagHistograms;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What an operator reads (docs/contract.md §12), for every face — the console's pages, the management API: keyset
 * pages of marks, capped counts, top errors, a search by id, per-tenant counts, orphaned marks, trends and lags,
 * instances, the audit log and a run's partitions. It answers in API and {@code inspect} types only, mapping the
 * store's records here, so that no face reads the store. Each read runs in the caller's transaction where there is
 * one; the bounds below keep every read's cost independent of the table's size.
 */
public final class Reads {

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

    private final Sql sql;
    private final Tables store;
    private final Clock clock;
    private final Settings settings;
    private final EngineStats stats;
    private final ProjectionCatalog catalog;
    private final String instanceId;
    private final RebuildOperations rebuilds;
    private final MarkLists lists = new MarkLists();
    private final AuditLog audit = new AuditLog();

    public Reads(Sql sql, Tables store, Clock clock, Settings settings, EngineStats stats, ProjectionCatalog catalog,
                 String instanceId, RebuildOperations rebuilds) {
        this.rebuilds = rebuilds;
        this.sql = sql;
        this.store = store;
        this.clock = clock;
        this.settings = settings;
        this.stats = stats;
        this.catalog = catalog;
        this.instanceId = instanceId;
    }

    /** The engine's clock, which the trends are written by: their windows must be cut by it too. */
    public Instant now() {
        return clock.instant();
    }

    /** Completed refreshes of each deployed projection in the last minute, on this instance. */
    public Map<String, Long> refreshesPerMinute() {
        Instant now = Instant.now(); // the rate's own clock: it records by the wall clock
        Map<String, Long> rates = new TreeMap<>();
        for (String name : catalog.names()) {
            rates.put(name, stats.refreshRate().lastMinute(name, now));
        }
        return rates;
    }

    public MarkPage page(MarkFilter filter, PageCursor cursor, boolean forward, int size) {
        return sql.call("list the marks of " + filter.projection(),
                c -> lists.page(c, filter, clock.instant(), cursor, forward, size));
    }

    public CappedCount count(MarkFilter filter) {
        return sql.call("count the marks of " + filter.projection(),
                c -> lists.count(c, filter, clock.instant(), COUNT_CAP));
    }

    /** The top errors of {@code filter}'s failing marks, read from at most {@value #ERROR_SCAN} of them. */
    public ErrorGroups topErrors(MarkFilter filter) {
        return sql.call("group the errors of " + filter.projection(),
                c -> lists.topErrors(c, filter, clock.instant(), TOP_ERRORS, ERROR_SCAN));
    }

    /** Every mark of entity {@code id} across projections and tenants, at most {@value #FOUND_LINES}. */
    public List<MarkRow> findById(String id) {
        return sql.call("find the marks of id " + id, c -> lists.findById(c, id, FOUND_LINES));
    }

    public List<TenantCounts> byTenant() {
        return sql.call("count marks per tenant", c -> lists.byTenant(c, TENANT_LINES));
    }

    /** Projections with marks that no instance deployed within 3 x sweep interval (docs/contract.md §11). */
    public List<OrphanedMarks> orphaned() {
        return sql.call("list orphaned marks", c -> lists.orphaned(c, clock.instant(), liveWindow()));
    }

    /** {@code projection}'s minutes from {@code from} to {@code to}, across the instances (docs/contract.md §12). */
    public List<TrendMinute> trend(String projection, Instant from, Instant to) {
        return minutes(sql.call("read the trends of " + projection, c -> store.trends().read(c, projection, from, to)));
    }

    /** Every projection's minutes from {@code from} to {@code to}, across the instances, by projection. */
    public Map<String, List<TrendMinute>> trends(Instant from, Instant to) {
        Map<String, List<TrendMinute>> byProjection = new LinkedHashMap<>();
        sql.call("read the trends", c -> store.trends().readAll(c, from, to))
                .forEach((projection, points) -> byProjection.put(projection, minutes(points)));
        return byProjection;
    }

    /**
     * The lag of {@code projection}'s refreshes of live marks in the trend minutes from {@code from} to {@code to},
     * every instance's added up (docs/contract.md §12).
     */
    public LagSummary lag(String projection, Instant from, Instant to) {
        return LagHistograms.summarize(sql.call("read the lag of " + projection,
                c -> store.trends().lags(c, projection, from, to)));
    }

    /** The keys of {@code projection} found drifted since {@code since}, by drift samples and verifications. */
    public long driftedSince(String projection, Instant since) {
        return sql.call("read the drift found of " + projection, c -> store.drift().driftedSince(c, projection, since));
    }

    /** Every projection's lag from {@code from} to {@code to}, in one read; a projection without one is absent. */
    public Map<String, LagSummary> lags(Instant from, Instant to) {
        Map<String, LagSummary> byProjection = new LinkedHashMap<>();
        sql.call("read the lags", c -> store.trends().lags(c, from, to))
                .forEach((projection, texts) -> byProjection.put(projection, LagHistograms.summarize(texts)));
        return byProjection;
    }

    /**
     * Every instance that reported, by name, with the projections each deployed in the last 3 sweep intervals, and the
     * clock limit this instance's lease time sets (which the heartbeat warns by).
     */
    public Instances instances() {
        Instant now = clock.instant();
        Duration live = liveWindow();
        Duration skewLimit = new ClockSkewRule(settings.shortestLeaseTime()).limit();
        return sql.call("read the instances", c -> new Instances(
                store.nodes().list(c).stream().map(Reads::report).toList(),
                store.instances().deployed(c, now.minus(live)), now, live, instanceId, skewLimit));
    }

    /**
     * Up to {@code limit} (at most {@value #AUDIT_PAGE}) of {@code filter}'s audit entries older than {@code beforeId},
     * newest first.
     */
    public List<AuditEntry> audit(AuditFilter filter, Long beforeId, int limit) {
        return sql.call("read the audit log",
                c -> audit.page(c, filter, beforeId, Math.max(1, Math.min(limit, AUDIT_PAGE))));
    }

    /** A rebuild run's partitions: ranges, cursors, leases. */
    public List<PartitionProgress> partitions(String runId) {
        return rebuilds.partitions(runId).stream().map(p -> new PartitionProgress(p.number(), p.after(), p.upTo(),
                p.cursor(), p.exhausted(), p.marked(), p.held(), p.leaseUntil(), p.takeovers(), p.readModel())).toList();
    }

    /** How long an instance that last reported counts as deployed: three sweep intervals. */
    private Duration liveWindow() {
        return settings.sweepInterval().multipliedBy(3);
    }

    private static List<TrendMinute> minutes(List<TrendPoint> points) {
        return points.stream().map(p -> new TrendMinute(p.minute(), p.pending(), p.dueNow(), p.failing(), p.refreshes(),
                p.failures(), p.p99Micros(), p.instances())).toList();
    }

    private static InstanceReport report(NodeReport node) {
        return new InstanceReport(node.instanceId(), node.startedAt(), node.lastSeen(), node.workers(),
                node.drainersBusy(), node.claimsHeld(), node.refreshesPerMinute(), node.clockSkew(), node.processing());
    }
}
