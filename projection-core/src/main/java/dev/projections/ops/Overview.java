package dev.projections.ops;

import dev.projections.ClockSkew;
import dev.projections.EngineHealth;
import dev.projections.MarkKey;
import dev.projections.ProjectionStatus;
import dev.projections.config.Settings;
import dev.projections.inspect.PendingCounts;
import dev.projections.inspect.ProjectionCounts;
import dev.projections.refresh.BackPressure;
import dev.projections.refresh.EngineStats;
import dev.projections.refresh.InstanceHeartbeat;
import dev.projections.refresh.ProcessingCount;
import dev.projections.refresh.ProjectionCatalog;
import dev.projections.store.Suspension;
import dev.projections.store.Tables;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import javax.sql.DataSource;

/**
 * Every projection's state at a glance, and the engine's health (docs/contract.md §12). The health reads the
 * database on a connection of its own, so that what it reports when the database cannot be reached is an answer,
 * not an exception: unhealthy, except when the pool is only exhausted (back-pressure is not failure, §6).
 */
public final class Overview {

    private final Sql sql;
    private final DataSource dataSource;
    private final Tables store;
    private final PendingCounts counts;
    private final Clock clock;
    private final Clock wallClock;
    private final ProjectionCatalog catalog;
    private final EngineStats stats;
    private final Settings settings;

    /**
     * @param clock     the engine's clock (due times, ages), which tests move
     * @param wallClock the clock the sweep's times were taken on ({@link EngineStats#lastSweepAt()})
     */
    public Overview(Sql sql, DataSource dataSource, Tables store, PendingCounts counts, Clock clock,
                    Clock wallClock, ProjectionCatalog catalog, EngineStats stats, Settings settings) {
        this.sql = sql;
        this.dataSource = dataSource;
        this.store = store;
        this.counts = counts;
        this.clock = clock;
        this.wallClock = wallClock;
        this.catalog = catalog;
        this.stats = stats;
        this.settings = settings;
    }

    /** One status per deployed projection; the latest rebuild shown is {@code tenant}'s. */
    public List<ProjectionStatus> overview(String tenant) {
        String checkedTenant = MarkKey.checkedTenant(tenant);
        return sql.call("read the overview", c -> {
            Instant now = clock.instant();
            Map<String, ProjectionCounts> byProjection = counts.countsByProjection(c, now);
            Set<String> paused = store.control().paused(c);
            Map<String, Suspension> suspended = store.control().suspensions(c);
            List<ProjectionStatus> statuses = new ArrayList<>();
            for (String name : new TreeSet<>(catalog.names())) {
                ProjectionCounts count = byProjection.getOrDefault(name,
                        new ProjectionCounts(0, 0, Duration.ZERO, 0, 0, 0));
                Suspension suspension = suspended.get(name);
                statuses.add(new ProjectionStatus(name, count.pending(), count.dueNow(), count.failing(),
                        count.parked(), count.oldestDueAge(),
                        count.failing() > 0 ? counts.lastError(c, name) : null,
                        paused.contains(name), suspension == null ? null : suspension.reason(),
                        store.rebuildHistory().latest(c, name, checkedTenant, now).orElse(null)));
            }
            return statuses;
        });
    }

    public EngineHealth health() {
        Instant lastSweep = stats.lastSweepAt();
        Duration stale = settings.sweepInterval().multipliedBy(3);
        Instant sweepExpectedSince = lastSweep == null ? stats.startedAt() : lastSweep;
        // the last measurement, even when the database cannot be reached now: it is still this clock's best reading
        ClockSkew clockSkew = stats.clockSkew();
        try (Connection connection = dataSource.getConnection()) {
            Instant now = clock.instant();
            Instant oldest = counts.oldestDue(connection, catalog.names(), now);
            Duration oldestAge = oldest == null ? Duration.ZERO : Duration.between(oldest, now);
            // a suspension is an operator's matter, not the server's: listed, and still healthy
            Map<String, String> suspended = new TreeMap<>();
            store.control().suspensions(connection).forEach((name, s) -> suspended.put(name, s.reason()));
            Set<String> paused = new TreeSet<>(store.control().paused(connection));
            paused.removeAll(suspended.keySet());
            boolean sweeping = settings.enabled() && settings.autoRefresh();
            if (sweeping && Duration.between(sweepExpectedSince, wallClock.instant()).compareTo(stale) > 0) {
                return new EngineHealth(false, lastSweep == null ? "no sweep has run since start-up"
                        : "the last sweep is older than 3 x projection.sweep-interval", lastSweep, oldestAge, paused,
                        suspended, clockSkew, settings.processing(), stats.liveProcessingNodes());
            }
            ProcessingCount processing = stats.processing();
            String unprocessed = processing == null || processing.unprocessed().isEmpty() ? null
                    : InstanceHeartbeat.noProcessingNode(processing.unprocessed());
            return new EngineHealth(true, unprocessed, lastSweep, oldestAge, paused, suspended, clockSkew,
                    settings.processing(), stats.liveProcessingNodes());
        } catch (SQLException e) {
            if (new BackPressure(settings.backPressure()).isBackPressure(e)) {
                // the pool is busy, not the database gone: taking this instance out of service would only move its
                // load to the others (docs/contract.md §6, back-pressure is not failure)
                return new EngineHealth(true, "connection pool exhausted: " + e.getMessage(), lastSweep, null,
                        Set.of(), Map.of(), clockSkew, settings.processing(), stats.liveProcessingNodes());
            }
            return new EngineHealth(false, "database unreachable: " + e.getMessage(), lastSweep, null, Set.of(),
                    Map.of(), clockSkew, settings.processing(), stats.liveProcessingNodes());
        }
    }
}
