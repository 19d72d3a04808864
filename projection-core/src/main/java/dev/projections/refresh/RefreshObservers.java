package dev.projections.refresh;

import dev.projections.spi.RefreshTracing;
import dev.projections.RefreshListener;

/**
 * Everyone the refresh path tells what it did, as one parameter of {@link RefreshEngine} and {@link BatchRefresher}:
 * the listener chain of each refresh (the engine's own first, then the application's), the lag of each committed
 * refresh, the tracing of refreshes, the lifecycle events, the engine's counters, and the other instances, which
 * {@code signals} tells that refreshes committed (docs/design.md D55; {@code null}: none). The engine builds it from
 * its builder's {@code Observers}.
 */
public record RefreshObservers(RefreshListener listener, RefreshLag lag, RefreshTracing tracing,
                               LifecycleAnnouncer lifecycle, EngineStats stats, WakeUpSignals signals) {

    /** Only {@code listener} and {@code stats}: no lag, no tracing, no lifecycle events (tests of the protocol). */
    public static RefreshObservers of(RefreshListener listener, EngineStats stats) {
        return new RefreshObservers(listener, RefreshLag.NONE, RefreshTracing.NONE, LifecycleAnnouncer.NONE, stats,
                null);
    }
}
