package dev.projections.metrics;

import dev.projections.ClockSkew;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * {@code projection.clock.skew} and {@code projection.clock.skew.limit} (docs/contract.md §9), in seconds: this
 * instance's clock minus the database's at its last sweep, and how far either way it may be (half the lease margin,
 * §4 "Time"). Unlike the pending gauges these differ per instance; the limit is a gauge too, so that an alert is
 * {@code abs(skew) > limit} whatever the lease. The skew is NaN until the first sweep measured it: no reading, not a
 * perfect clock.
 */
public final class ClockSkewGauges {

    private final Supplier<ClockSkew> measured;
    private final Duration limit;

    /** {@code measured} gives the last measurement, {@code null} before the first. */
    public ClockSkewGauges(Supplier<ClockSkew> measured, Duration limit) {
        this.measured = measured;
        this.limit = limit;
    }

    public void register(MeterRegistry registry) {
        Gauge.builder("projection.clock.skew", this::skewSeconds)
                .description("this instance's clock minus the database's at its last sweep; beyond"
                        + " projection.clock.skew.limit either way two instances could hold one mark at once: NTP")
                .baseUnit("seconds").strongReference(true).register(registry);
        Gauge.builder("projection.clock.skew.limit", () -> seconds(limit))
                .description("how far this instance's clock may be from the database's: half the lease margin,"
                        + " min(projection.lease-time / 10, 10 s) / 2")
                .baseUnit("seconds").strongReference(true).register(registry);
    }

    private double skewSeconds() {
        ClockSkew last = measured.get();
        return last == null ? Double.NaN : seconds(last.skew());
    }

    private static double seconds(Duration duration) {
        return duration.toNanos() / 1e9;
    }
}
