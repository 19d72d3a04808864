package dev.projections.it.support;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * Waits for something the server does on another thread (an asynchronous refresh, a timer). A deadline, not a
 * sleep: the test proceeds as soon as the condition holds and fails naming what never happened. Correctness of
 * interleavings is never left to it.
 */
public final class Await {

    private Await() {
    }

    public static void until(String what, BooleanSupplier condition) {
        until(what, Duration.ofSeconds(30), condition);
    }

    public static void until(String what, Duration timeout, BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + timeout.toSeconds() + "s waiting for: " + what);
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting for: " + what, e);
            }
        }
    }
}
