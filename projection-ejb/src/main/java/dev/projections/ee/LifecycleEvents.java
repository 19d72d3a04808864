package dev.projections.ee;

import dev.projections.lifecycle.LifecycleEvent;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.inject.Inject;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;

/**
 * The engine's lifecycle events as CDI events of the application (docs/contract.md §6, §7): a synchronous
 * {@code fire} of the event's record, so {@code @Observes MarkParked} in any bean of the deployment sees it. The
 * engine's own transitions are fired on the thread that committed them, after the commit (a drainer's, the sweep's);
 * an operator's (a suspension, a resume) once the operator's transaction committed, on a thread of the default managed
 * executor — never from the transaction's completion itself, where an observer could not call a {@code REQUIRED} EJB
 * (docs/pitfalls.md #5). What an observer throws is caught by the engine's announcer: logged, counted, the change
 * stands.
 */
@ApplicationScoped
public class LifecycleEvents {

    @Inject
    BeanManager beanManager;

    @Inject
    EngineRuntime runtime;

    @Resource
    TransactionSynchronizationRegistry transactions;

    @Resource
    ManagedExecutorService executor;

    /** Fires {@code event} now, on this thread; what an observer throws reaches the caller (the announcer). */
    public void fire(LifecycleEvent event) {
        beanManager.getEvent().fire(event);
    }

    /** Announces {@code event} once the caller's transaction committed (nothing on a rollback); at once without one. */
    public void afterCommit(LifecycleEvent event) {
        if (transactions.getTransactionStatus() != Status.STATUS_ACTIVE) {
            announce(event);
            return;
        }
        transactions.registerInterposedSynchronization(new Synchronization() {
            @Override
            public void beforeCompletion() {
            }

            @Override
            public void afterCompletion(int status) {
                if (status == Status.STATUS_COMMITTED) {
                    executor.execute(() -> announce(event));
                }
            }
        });
    }

    private void announce(LifecycleEvent event) {
        runtime.assembled().lifecycle().announce(event);
    }
}
