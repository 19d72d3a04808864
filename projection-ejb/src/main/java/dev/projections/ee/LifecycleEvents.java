package dev.projections.ee;

import dev.projections.lifecycle.LifecycleEvent;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.inject.Inject;
import jakarta.transaction.Status;
import jakarta.transaction.TransactionSynchronizationRegistry;

/**
 * The engine's lifecycle events as CDI events of the application (docs/contract.md §6, §7): a synchronous
 * {@code fire} of the event's record, so {@code @Observes MarkParked} in any bean of the deployment sees it. The
 * engine's own transitions are fired on the thread that committed them, after the commit (a drainer's, the sweep's; a
 * cancel, which commits on its own inside its caller's transaction, on the executor below); an operator's (a
 * suspension, a resume) once the operator's transaction committed, on a thread of the default managed executor — never from the transaction's completion itself, where an observer could not call a {@code REQUIRED} EJB
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

    /**
     * The engine's listener: fires {@code event} now on a thread outside any transaction (a drainer's, the sweep's),
     * what an observer throws reaching the caller (the announcer). On a thread inside one — a cancel, committed on its
     * own, called from an operator's or the application's transaction — the event goes to the executor instead, so
     * that an observer's failure cannot mark the caller's transaction for rollback.
     */
    public void fire(LifecycleEvent event) {
        if (transactions.getTransactionStatus() == Status.STATUS_NO_TRANSACTION) {
            beanManager.getEvent().fire(event);
        } else {
            executor.execute(() -> announce(event));
        }
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
        transactions.registerInterposedSynchronization(new OnCommit(() -> executor.execute(() -> announce(event))));
    }

    private void announce(LifecycleEvent event) {
        runtime.assembled().lifecycle().announce(event);
    }
}
