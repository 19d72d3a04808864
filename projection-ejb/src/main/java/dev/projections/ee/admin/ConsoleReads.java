package dev.projections.ee.admin;

import dev.projections.engine.Foundation;
import dev.projections.ProjectionStatus;
import dev.projections.Projections;
import dev.projections.RebuildProgress;
import dev.projections.RebuildScope;
import dev.projections.TenantDirectory;
import dev.projections.config.ProjectionSettings;
import dev.projections.config.SettingSource;
import dev.projections.config.Settings;
import dev.projections.ee.EngineResources;
import dev.projections.ee.EngineRuntime;
import dev.projections.ee.ProjectionRegistry;
import dev.projections.inspect.AuditEntry;
import dev.projections.inspect.AuditFilter;
import dev.projections.inspect.CappedCount;
import dev.projections.inspect.ErrorGroups;
import dev.projections.inspect.Instances;
import dev.projections.inspect.LagSummary;
import dev.projections.inspect.MarkFilter;
import dev.projections.inspect.MarkPage;
import dev.projections.inspect.MarkRow;
import dev.projections.inspect.OrphanedMarks;
import dev.projections.inspect.PageCursor;
import dev.projections.inspect.PartitionProgress;
import dev.projections.inspect.TenantCounts;
import dev.projections.inspect.TrendMinute;
import dev.projections.ops.Reads;
import dev.projections.ops.Rebuildable;
import jakarta.annotation.security.DeclareRoles;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What the console shows (docs/contract.md §12), for {@value ConsoleRoles#VIEWER} and {@value ConsoleRoles#ADMIN}: the
 * overview, keyset pages of marks, capped counts, per-tenant counts, orphaned marks and the audit log. A door: it
 * checks the role and delegates to the engine's reads and operations (core's {@code ops.Reads}), which answer in API
 * and {@code inspect} types only, so that the pages never read the store.
 */
@Stateless
@DeclareRoles({ConsoleRoles.ADMIN, ConsoleRoles.VIEWER})
@RolesAllowed({ConsoleRoles.ADMIN, ConsoleRoles.VIEWER})
@TransactionAttribute(TransactionAttributeType.SUPPORTS)
public class ConsoleReads {

    /** Counts above this show as "10,000+". */
    public static final int COUNT_CAP = Reads.COUNT_CAP;
    /** Lines of the per-tenant table. */
    public static final int TENANT_LINES = Reads.TENANT_LINES;
    /** Lines of a search by id. */
    public static final int FOUND_LINES = Reads.FOUND_LINES;
    /** Audit entries one call reads at most. */
    public static final int AUDIT_PAGE = Reads.AUDIT_PAGE;

    @Inject
    Projections projections;

    @Inject
    EngineResources resources;


    @Inject
    Foundation foundation;

    @Inject
    EngineRuntime runtime;

    @Inject
    ProjectionRegistry registry;

    @Inject
    Instance<TenantDirectory> tenantDirectory;

    public List<ProjectionStatus> overview() {
        return projections.overview();
    }

    /** Completed refreshes of each deployed projection in the last minute, on this instance. */
    public Map<String, Long> refreshesPerMinute() {
        return reads().refreshesPerMinute();
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

    /** Whether {@code projection} can be verified: it implements {@link dev.projections.Verifiable} beside its ids. */
    public boolean verifiable(String projection) {
        return rebuildable(projection) && registry.byName(projection) instanceof dev.projections.Verifiable;
    }

    /** The keys of {@code projection} found drifted since {@code since}, by samples and verifications. */
    public long driftedSince(String projection, Instant since) {
        return reads().driftedSince(projection, since);
    }

    /** The progress of a rebuild run. */
    public RebuildProgress rebuildProgress(String runId) {
        return runtime.operations().rebuilds().progress(runId);
    }

    /** A run by its id, if there is one (a link may name a run that never was: not an error to log). */
    public Optional<RebuildProgress> findRebuild(String runId) {
        return runtime.operations().rebuilds().find(runId);
    }

    /** The newest rebuild runs, of one projection or ({@code null}) of all. */
    public List<RebuildProgress> rebuildHistory(String projection, int limit) {
        return runtime.operations().rebuilds().history(projection, limit);
    }

    /** A run's partitions: ranges, cursors, leases. */
    public List<PartitionProgress> rebuildPartitions(String runId) {
        return reads().partitions(runId);
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
        return reads().page(filter, cursor, forward, size);
    }

    public CappedCount count(MarkFilter filter) {
        return reads().count(filter);
    }

    /** The top errors of {@code filter}'s failing marks, read from a bounded number of them. */
    public ErrorGroups topErrors(MarkFilter filter) {
        return reads().topErrors(filter);
    }

    /** Every mark of entity {@code id} across projections and tenants, at most {@value #FOUND_LINES}. */
    public List<MarkRow> findById(String id) {
        return reads().findById(id);
    }

    public List<TenantCounts> byTenant() {
        return reads().byTenant();
    }

    /** Projections with marks that no instance deployed within 3 x sweep interval (docs/contract.md §11). */
    public List<OrphanedMarks> orphaned() {
        return reads().orphaned();
    }

    /** {@code projection}'s minutes from {@code from} to {@code to}, across the instances (docs/contract.md §12, trends). */
    public List<TrendMinute> trend(String projection, Instant from, Instant to) {
        return reads().trend(projection, from, to);
    }

    /** Every projection's minutes from {@code from} to {@code to}, across the instances, by projection. */
    public Map<String, List<TrendMinute>> trends(Instant from, Instant to) {
        return reads().trends(from, to);
    }

    /** The lag of {@code projection}'s refreshes of live marks from {@code from} to {@code to} (docs/contract.md §12). */
    public LagSummary lag(String projection, Instant from, Instant to) {
        return reads().lag(projection, from, to);
    }

    /** Every projection's lag from {@code from} to {@code to}, in one read; a projection without one is absent. */
    public Map<String, LagSummary> lags(Instant from, Instant to) {
        return reads().lags(from, to);
    }

    /** The engine's clock, which the trends are written by: their windows must be cut by it too. */
    public Instant now() {
        return foundation.clock().instant();
    }

    /** Every instance that reported, with the projections each deployed lately, and this instance's clock limit. */
    public Instances instances() {
        return reads().instances();
    }

    /**
     * The settings of {@code projection} in force on this instance, each with where it came from
     * ({@code projection.<name>.<key>}, its code, the global key, the default).
     */
    public ProjectionSettings projectionSettings(String projection) {
        return registry.settings().of(projection);
    }

    /** {@code projection}'s {@code freshness-objective} in force, {@code null} when it has none. */
    public Duration freshnessObjective(String projection) {
        return projectionSettings(projection).freshnessObjective();
    }

    /** Where the global {@code key} was set ({@code system property projection.batch-size}, …), or "default". */
    public String settingOrigin(String key) {
        SettingSource.Found found = resources.settingSource().find(key);
        return found == null ? ProjectionSettings.DEFAULT_ORIGIN : found.origin();
    }

    /** The settings in force on the instance that serves the console. */
    public Settings settings() {
        return foundation.settings();
    }

    public List<AuditEntry> audit(Long beforeId, int limit) {
        return audit(AuditFilter.ALL, beforeId, limit);
    }

    /**
     * Up to {@code limit} (at most {@value #AUDIT_PAGE}) of {@code filter}'s audit entries older than {@code beforeId},
     * newest first: the audit page and, page by page, its CSV export, both under this bean's role check.
     */
    public List<AuditEntry> audit(AuditFilter filter, Long beforeId, int limit) {
        return reads().audit(filter, beforeId, limit);
    }

    private Reads reads() {
        return runtime.assembled().reads();
    }
}
