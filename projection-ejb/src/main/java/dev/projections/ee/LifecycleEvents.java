package dev.projections.ee;

import dev.projections.lifecycle.LifecycleEvent;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.inject.Inject;
import jakarta.transaction.Status;
import jakarta.transaction.TransactionSynchronizationRegistry;

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

    @Inject
    EngineRuntime runtime;

    @Resource
    TransactionSynchronizationRegistry transactions;

    /** The engine's listener, called on its lifecycle thread: what an observer throws reaches the announcer. */
    public void fire(LifecycleEvent event) {
        beanManager.getEvent().fire(event);
    }

    /**
     * Announces {@code event} once the caller's transaction committed (nothing on a rollback, nor when it is already
     * marked for one); at once without a transaction.
     */
    public void afterCommit(LifecycleEvent event) {
        int status = transactions.getTransactionStatus();
        if (status == Status.STATUS_NO_TRANSACTION) {
            announce(event);
            return;
        }
        if (status != Status.STATUS_ACTIVE) {
            return; // marked for rollback: what it did will not be true
        }
        transactions.registerInterposedSynchronization(new OnCommit(() -> announce(event)));
    }

    private void announce(LifecycleEvent event) {
        runtime.assembled().lifecycle().announce(event);
    }
}
