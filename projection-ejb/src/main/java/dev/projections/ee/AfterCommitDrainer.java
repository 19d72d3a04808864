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

    /** Runs {@code first} after the caller's transaction commits (at once without one), then starts a drainer. */
    void afterCommit(Runnable first) {
        if (!resources.settings().autoRefresh()) {
            first.run();
            return;
        }
        if (transactions.getTransactionStatus() == Status.STATUS_ACTIVE) {
            transactions.registerInterposedSynchronization(new OnCommit(() -> {
                first.run();
                runtime.drainers().startIfSlotFree(DrainerOrigin.SWEEP);
            }));
        } else {
            first.run();
            runtime.drainers().startIfSlotFree(DrainerOrigin.SWEEP);
        }
    }
}
