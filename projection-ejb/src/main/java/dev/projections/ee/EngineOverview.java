package dev.projections.ee;

import dev.projections.ops.Arguments;
import dev.projections.ClockSkew;
import dev.projections.EngineHealth;
import dev.projections.ProjectionStatus;
import dev.projections.inspect.ProjectionCounts;
import dev.projections.refresh.BackPressure;
import dev.projections.store.RebuildStore;
import dev.projections.store.Suspension;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Every projection's state at a glance, and the engine's health (docs/contract.md §12). */
@ApplicationScoped
public class EngineOverview {

    @Inject
    EngineResources resources;

    @Inject
    ProjectionRegistry registry;

    @Inject
    MarkSinkBean sink;

    private final RebuildStore rebuildStore = new RebuildStore();

    List<ProjectionStatus> overview() {
        String tenant = Arguments.tenant(sink.currentTenant());
        return resources.sql().call("read the overview", c -> {
            Instant now = resources.clock().instant();
            Map<String, ProjectionCounts> counts = resources.counts().countsByProjection(c, now);
            Set<String> paused = resources.store().control().paused(c);
            Map<String, Suspension> suspended = resources.store().control().suspensions(c);
            List<ProjectionStatus> statuses = new ArrayList<>();
            for (String name : registry.names()) {
                ProjectionCounts count = counts.getOrDefault(name, new ProjectionCounts(0, 0, Duration.ZERO, 0, 0, 0));
                Suspension suspension = suspended.get(name);
                statuses.add(new ProjectionStatus(name, count.pending(), count.dueNow(), count.failing(),
                        count.parked(), count.oldestDueAge(),
                        count.failing() > 0 ? resources.counts().lastError(c, name) : null,
                        paused.contains(name), suspension == null ? null : suspension.reason(),
                        rebuildStore.latest(c, name, tenant, now).orElse(null)));
            }
            return statuses;
        });
    }

    EngineHealth health() {
        Instant lastSweep = resources.stats().lastSweepAt();
        Duration stale = resources.settings().sweepInterval().multipliedBy(3);
        Instant sweepExpectedSince = lastSweep == null ? resources.stats().startedAt() : lastSweep;
        // the last measurement, even when the database cannot be reached now: it is still this clock's best reading
        ClockSkew clockSkew = resources.stats().clockSkew();
        try (Connection connection = resources.dataSource().getConnection()) {
            Instant now = resources.clock().instant();
            Instant oldest = resources.counts().oldestDue(connection, registry.names(), now);
            Duration oldestAge = oldest == null ? Duration.ZERO : Duration.between(oldest, now);
            // a suspension is an operator's matter, not the server's: listed, and still healthy
            java.util.Map<String, String> suspended = new java.util.TreeMap<>();
            resources.store().control().suspensions(connection).forEach((name, s) -> suspended.put(name, s.reason()));
            Set<String> paused = new java.util.TreeSet<>(resources.store().control().paused(connection));
            paused.removeAll(suspended.keySet());
            boolean sweeping = resources.settings().enabled() && resources.settings().autoRefresh();
            if (sweeping && Duration.between(sweepExpectedSince, Instant.now()).compareTo(stale) > 0) {
                return new EngineHealth(false, lastSweep == null ? "no sweep has run since start-up"
                        : "the last sweep is older than 3 x projection.sweep-interval", lastSweep, oldestAge, paused,
                        suspended, clockSkew);
            }
            return new EngineHealth(true, null, lastSweep, oldestAge, paused, suspended, clockSkew);
        } catch (SQLException e) {
            if (new BackPressure(resources.settings().backPressure()).isBackPressure(e)) {
                // the pool is busy, not the database gone: taking this instance out of service would only move its
                // load to the others (docs/contract.md §6, back-pressure is not failure)
                return new EngineHealth(true, "connection pool exhausted: " + e.getMessage(), lastSweep, null,
                        Set.of(), java.util.Map.of(), clockSkew);
            }
            return new EngineHealth(false, "database unreachable: " + e.getMessage(), lastSweep, null, Set.of(),
                    java.util.Map.of(), clockSkew);
        }
    }
}
