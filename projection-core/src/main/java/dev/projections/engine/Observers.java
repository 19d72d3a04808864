package dev.projections.engine;

import dev.projections.RefreshListener;
import dev.projections.lifecycle.LifecycleListener;
import dev.projections.refresh.RefreshLag;
import dev.projections.spi.RefreshTracing;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Everyone outside the engine that is told what it does, given to the {@link Engine}'s builder as one object: the
 * refresh listeners (in the order added, after the engine's own), the lag of each committed refresh, the tracing of
 * refreshes, the lifecycle events, and this instance's changes of pauses. Each is none by default. Immutable: each
 * method returns a copy with one observer more.
 */
public final class Observers {

    public static final Observers NONE = new Observers(List.of(), RefreshLag.NONE, RefreshTracing.NONE,
            LifecycleListener.NONE, () -> { });

    private final List<RefreshListener> listeners;
    private final RefreshLag lag;
    private final RefreshTracing tracing;
    private final LifecycleListener lifecycle;
    private final Runnable pausesChanged;

    private Observers(List<RefreshListener> listeners, RefreshLag lag, RefreshTracing tracing,
                      LifecycleListener lifecycle, Runnable pausesChanged) {
        this.listeners = List.copyOf(listeners);
        this.lag = lag;
        this.tracing = tracing;
        this.lifecycle = lifecycle;
        this.pausesChanged = pausesChanged;
    }

    /** Told after each refresh, after the listeners added before; each is told even when one before it threw. */
    public Observers listener(RefreshListener listener) {
        List<RefreshListener> all = new ArrayList<>(listeners);
        all.add(Objects.requireNonNull(listener, "listener"));
        return new Observers(all, lag, tracing, lifecycle, pausesChanged);
    }

    /** Told of each committed refresh's lag (the meter {@code projection.lag}). */
    public Observers lag(RefreshLag lag) {
        return new Observers(listeners, Objects.requireNonNull(lag, "lag"), tracing, lifecycle, pausesChanged);
    }

    /** Traces each refresh, linked to the business transactions of its marks. */
    public Observers tracing(RefreshTracing tracing) {
        return new Observers(listeners, lag, Objects.requireNonNull(tracing, "tracing"), lifecycle, pausesChanged);
    }

    /** Told of each lifecycle event on the engine's lifecycle thread, after the commit that made it true. */
    public Observers lifecycle(LifecycleListener lifecycle) {
        return new Observers(listeners, lag, tracing, Objects.requireNonNull(lifecycle, "lifecycle"), pausesChanged);
    }

    /**
     * Told once a pause, a suspension or a resume made on this instance committed (the server forgets its cached copy
     * of the pauses then: forgotten before, a drainer's read in between would cache the old state again).
     */
    public Observers pausesChanged(Runnable pausesChanged) {
        return new Observers(listeners, lag, tracing, lifecycle, Objects.requireNonNull(pausesChanged, "pausesChanged"));
    }

    List<RefreshListener> listeners() {
        return listeners;
    }

    RefreshLag lag() {
        return lag;
    }

    RefreshTracing tracing() {
        return tracing;
    }

    LifecycleListener lifecycle() {
        return lifecycle;
    }

    Runnable pausesChanged() {
        return pausesChanged;
    }
}
