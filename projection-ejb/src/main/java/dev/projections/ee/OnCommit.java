package dev.projections.ee;

import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;

/** A {@link Synchronization} that runs its work once the transaction committed, and nothing on a rollback. */
final class OnCommit implements Synchronization {

    private final Runnable work;

    OnCommit(Runnable work) {
        this.work = work;
    }

    @Override
    public void beforeCompletion() {
    }

    @Override
    public void afterCompletion(int status) {
        if (status == Status.STATUS_COMMITTED) {
            work.run();
        }
    }
}
