package dev.projections.refresh;

import java.time.Duration;

/**
 * Counts the drainers inside a turn and the refreshes that have started, so that {@link RefreshEngine#stop} can
 * wait for them (docs/contract.md §5 shutdown) without a thread of its own; and the claims their batches hold, for the
 * console's instances page.
 */
final class InFlight {

    private int refreshing;
    private int draining;
    private int peakDraining;
    private int claimsHeld;

    synchronized void drainBegins() {
        draining++;
        peakDraining = Math.max(peakDraining, draining);
    }

    /** The most drainers ever inside a turn at once: counted here, not by the hand-off that bounds them. */
    synchronized int peakDraining() {
        return peakDraining;
    }

    synchronized void drainEnds() {
        draining--;
        notifyAll();
    }

    /** A drainer's batch of {@code claims} marks begins: they are held until the batch ends. */
    synchronized void batchBegins(int claims) {
        claimsHeld += claims;
    }

    synchronized void batchEnds(int claims) {
        claimsHeld -= claims;
    }

    /** The marks in the batches drainers work on now: claimed here, not yet acked, failed or given back as a batch. */
    synchronized int claimsHeld() {
        return claimsHeld;
    }

    synchronized void refreshBegins() {
        refreshing++;
    }

    synchronized void refreshEnds() {
        refreshing--;
        notifyAll();
    }

    /** Waits until no drainer and no refresh is in flight, at most {@code wait}; returns the refreshes left. */
    synchronized int awaitIdle(Duration wait) {
        long deadline = System.nanoTime() + wait.toNanos();
        while (refreshing > 0 || draining > 0) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return refreshing;
            }
            try {
                wait(Math.max(1, left / 1_000_000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return refreshing;
            }
        }
        return 0;
    }
}
