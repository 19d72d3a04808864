package dev.projections.ee;

import dev.projections.lifecycle.LifecycleEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.inject.Inject;

/**
 * The engine's lifecycle events as CDI events of the application (docs/contract.md §6, §7): a synchronous
 * {@code fire} of the event's record, so {@code @Observes MarkParked} in any bean of the deployment sees it. The engine
 * tells every event on its one lifecycle thread (a thread of the container's managed thread factory, outside any
 * transaction), in the order announced, once the change committed: the engine's own transitions from the thread that
 * committed them, an operator's (a suspension, a resume) once the operator's transaction committed — queued from the
 * transaction's completion, never observed there, where an observer could not call a {@code REQUIRED} EJB
 * (docs/pitfalls.md #5). A slow observer holds that thread only, never a drainer or the sweep; what an observer throws
 * is caught by the engine's announcer: logged, counted, the change stands.
 */
@ApplicationScoped
public class LifecycleEvents {

    @Inject
    BeanManager beanManager;

    /** The engine's listener, called on its lifecycle thread: what an observer throws reaches the announcer. */
    public void fire(LifecycleEvent event) {
        beanManager.getEvent().fire(event);
    }
}
