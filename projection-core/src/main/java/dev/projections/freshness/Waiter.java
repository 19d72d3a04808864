package dev.projections.freshness;

import dev.projections.MarkKey;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/** One waiting thread: its keys not yet seen refreshed, and a wake-up that is never lost between check and sleep. */
final class Waiter {
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition woken = lock.newCondition();
    private boolean wake;
    volatile Set<MarkKey> remaining;
    /** The check asked last, perhaps still running. */
    volatile CompletableFuture<Set<MarkKey>> check;

    Waiter(Set<MarkKey> keys) {
        this.remaining = keys;
    }

    void wake() {
        lock.lock();
        try {
            wake = true;
            woken.signalAll();
        } finally {
            lock.unlock();
        }
    }

    void sleep(long nanos) throws InterruptedException {
        lock.lock();
        try {
            long left = nanos;
            while (!wake && left > 0) {
                left = woken.awaitNanos(left);
            }
            wake = false;
        } finally {
            lock.unlock();
        }
    }
}
