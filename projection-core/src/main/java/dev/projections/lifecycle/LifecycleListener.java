package dev.projections.lifecycle;

/**
 * SPI: where the engine tells its {@link LifecycleEvent}s (in the server, the CDI events). Called after the commit that
 * made the event true, on the thread that committed it; what it throws is logged and counted, never the engine's.
 */
@FunctionalInterface
public interface LifecycleListener {

    void on(LifecycleEvent event);

    LifecycleListener NONE = event -> { };
}
