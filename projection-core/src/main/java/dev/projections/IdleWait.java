package dev.projections;

import java.time.Duration;
import java.util.Map;

/**
 * How {@link Projections#awaitIdle} ended: {@code idle} when the projections had no mark left at all; otherwise what
 * was left when the timeout passed, per projection — marks waiting (backing-off and parked ones included), failing
 * and parked — so a test that times out can say why.
 */
public record IdleWait(boolean idle, Duration waited, Map<String, Long> pending, Map<String, Long> failing,
                       Map<String, Long> parked) {

    public IdleWait {
        pending = Map.copyOf(pending);
        failing = Map.copyOf(failing);
        parked = Map.copyOf(parked);
    }
}
