package dev.projections.metrics;

import dev.projections.inspect.PendingCounts;
import dev.projections.inspect.ProjectionCounts;
import dev.projections.store.ControlTable;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;
import java.util.logging.Level;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * The gauges of docs/contract.md §9 — {@code projection.pending}, {@code projection.failing}, {@code projection.oldest.age},
 * and {@code projection.rebuild.failing} (the failing marks a rebuild left) —
 * per projection, all from one grouped query cached for a second, so a scrape runs one query, not one per meter.
 * They describe the shared table, so every instance reports the same values: aggregate with {@code max}.
 */
public final class PendingGauges {

    private static final Logger LOG = Logger.getLogger(PendingGauges.class.getName());
    private static final long CACHE_NANOS = 1_000_000_000L;

    private final DataSource dataSource;
    private final PendingCounts pending;
    private final ControlTable control;
    private final Clock clock;
    private Map<String, ProjectionCounts> counts = Map.of();
    private volatile Set<String> suspended = Set.of();
    private long readAt = Long.MIN_VALUE;

    public PendingGauges(DataSource dataSource, PendingCounts pending, ControlTable control, Clock clock) {
        this.dataSource = dataSource;
        this.pending = pending;
        this.control = control;
        this.clock = clock;
    }

    public void register(MeterRegistry registry, Iterable<String> projections) {
        for (String projection : projections) {
            gauge(registry, "projection.pending", projection, "marks waiting, including those backing off",
                    c -> c.pending());
            gauge(registry, "projection.failing", projection, "marks whose refreshes failed (attempts > 0)",
                    c -> c.failing());
            gauge(registry, "projection.oldest.age", projection, "age in seconds of the oldest due mark",
                    c -> c.oldestDueAge().toMillis() / 1000.0);
            gauge(registry, "projection.suspended", projection,
                    "1 while the projection is suspended for failing across many keys, else 0",
                    c -> suspended.contains(projection) ? 1 : 0);
            gauge(registry, "projection.parked", projection,
                    "marks parked after failing for good: never refreshed until an operator resumes or skips them",
                    c -> c.parked());
            gauge(registry, "projection.rebuild.failing", projection,
                    "rebuild marks whose refreshes failed: a finished run says \"finished, N failing\"",
                    c -> c.rebuildFailing());
        }
    }

    private void gauge(MeterRegistry registry, String name, String projection, String description,
                       ToDoubleFunction<ProjectionCounts> value) {
        Supplier<Number> reading = () -> value.applyAsDouble(countsOf(projection));
        Gauge.builder(name, reading).description(description).tag("projection", projection)
                .baseUnit(name.endsWith(".age") ? "seconds" : null).strongReference(true).register(registry);
    }

    private synchronized ProjectionCounts countsOf(String projection) {
        long now = System.nanoTime();
        if (readAt == Long.MIN_VALUE || now - readAt > CACHE_NANOS) {
            try (Connection connection = dataSource.getConnection()) {
                counts = pending.countsByProjection(connection, clock.instant());
                suspended = Set.copyOf(control.suspensions(connection).keySet());
                readAt = now;
            } catch (SQLException e) {
                LOG.log(Level.FINE, "could not read the pending table for the gauges", e);
            }
        }
        return counts.getOrDefault(projection, new ProjectionCounts(0, 0, Duration.ZERO, 0, 0, 0));
    }
}
