package dev.projections.freshness;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The test support's wait for projections to have no mark left (docs/contract.md §14 "Test support"): checks each by
 * the queue's primary key after 10, 20, 50 and 100 ms, then every 100 ms, until none has a mark or the timeout
 * (capped by {@code projection.await-max-timeout}) passed. For tests: a check costs a statement per projection.
 */
public final class IdleWaits {

    private static final Logger LOG = Logger.getLogger(IdleWaits.class.getName());
    private static final long[] FIRST_CHECKS_MS = {10, 20, 50, 100};

    /** Which of the projections still have marks. */
    @FunctionalInterface
    public interface MarksLeft {
        Set<String> of(Set<String> projections) throws Exception;
    }

    private final Duration maxTimeout;
    private final MarksLeft marksLeft;

    public IdleWaits(Duration maxTimeout, MarksLeft marksLeft) {
        this.maxTimeout = maxTimeout;
        this.marksLeft = marksLeft;
    }

    /** True once no projection of {@code projections} has a mark; false when {@code timeout} passed first. */
    public boolean await(Set<String> projections, Duration timeout) throws InterruptedException {
        if (timeout == null || timeout.isNegative()) {
            throw new IllegalArgumentException("timeout must be zero or positive, was " + timeout);
        }
        Duration bounded = timeout.compareTo(maxTimeout) > 0 ? maxTimeout : timeout;
        long deadline = System.nanoTime() + bounded.toNanos();
        Set<String> left = projections;
        for (int checks = 0; ; checks++) {
            try {
                left = marksLeft.of(left);
            } catch (Exception e) {
                LOG.log(Level.FINE, "an idle check failed; the wait goes on: {0}", e.toString());
            }
            long now = System.nanoTime();
            if (left.isEmpty()) {
                return true;
            }
            if (now - deadline >= 0) {
                return false;
            }
            long pause = TimeUnit.MILLISECONDS.toNanos(checks < FIRST_CHECKS_MS.length ? FIRST_CHECKS_MS[checks] : 100);
            TimeUnit.NANOSECONDS.sleep(Math.min(pause, deadline - now));
        }
    }
}
