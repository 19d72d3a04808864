package dev.projections.lifecycle;

import java.time.Instant;

/**
 * A paused or suspended projection runs again on every instance: an operator resumed it ({@code by} is their name),
 * or a probe refresh succeeded and lifted its suspension ({@code by} is {@code "probe"}).
 */
public record ProjectionResumed(String projection, String by, Instant at) implements LifecycleEvent {

    /** {@code by} of a suspension lifted by a successful probe. */
    public static final String PROBE = "probe";
}
