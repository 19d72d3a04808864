package dev.projections.ee;

import dev.projections.refresh.DrainerOrigin;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Status;
import jakarta.transaction.TransactionSynchronizationRegistry;

/**
 * Starts a drainer for work an API call made due (a retry, a resume, a rebuild): after the caller's transaction
 * commits if there is one — a drainer started before would not see the change — else at once.
 */
@ApplicationScoped
public class AfterCommitDrainer {

    @Inject
    EngineResources resources;

    @Inject
    EngineRuntime runtime;

    @Resource
    TransactionSynchronizationRegistry transactions;

    void start() {
        afterCommit(() -> { });
    }

    /**
     * Runs {@code first} after the caller's transaction commits (at once without one), then starts a drainer that
     * looks at every projection's due marks. The look names them all rather than reading which are paused: that read
     * would run on the completing thread, where a connection may not be had, and a copy of the pauses cached before
     * the commit would leave out a projection the transaction resumed (engine review E7).
     */
    void afterCommit(Runnable first) {
        if (!resources.settings().autoRefresh()) {
            afterCommitted(first);
            return;
        }
        afterCommitted(() -> {
            first.run();
            runtime.drainers().startIfSlotFreeForAny(DrainerOrigin.SWEEP);
        });
    }

    /** Runs {@code work} after the caller's transaction commits, at once without one; never on a rollback. */
    void afterCommitted(Runnable work) {
        if (transactions.getTransactionStatus() == Status.STATUS_ACTIVE) {
            transactions.registerInterposedSynchronization(new OnCommit(work));
        } else {
            work.run();
        }
    }
}
