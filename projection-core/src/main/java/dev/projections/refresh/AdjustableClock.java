package dev.projections.refresh;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The engine's clock: the system's UTC clock shifted by an offset that is zero in production. Tests move it
 * forward to expire a lease or a backoff at a chosen point of an interleaving, instead of sleeping.
 */
public final class AdjustableClock extends Clock {

    private final Clock base;
    private final AtomicReference<Duration> offset = new AtomicReference<>(Duration.ZERO);

    public AdjustableClock() {
        this(Clock.systemUTC());
    }

    public AdjustableClock(Clock base) {
        this.base = base;
    }

    public void advance(Duration by) {
        offset.accumulateAndGet(by, Duration::plus);
    }

    public void reset() {
        offset.set(Duration.ZERO);
    }

    /** In microseconds, the precision of the database's timestamps, so an instant survives a round trip. */
    @Override
    public Instant instant() {
        return base.instant().plus(offset.get()).truncatedTo(ChronoUnit.MICROS);
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        throw new UnsupportedOperationException("the engine clock is always UTC");
    }
}
