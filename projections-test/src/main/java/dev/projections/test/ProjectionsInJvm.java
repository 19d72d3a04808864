package dev.projections.test;

import dev.projections.IdleWait;
import dev.projections.Projections;
import java.time.Duration;

/**
 * The same waits inside the server (an Arquillian test with {@code @Inject Projections}), where no test support needs
 * to be on: {@link Projections#awaitIdle} and {@link Projections#refreshNow}, failing the test with the counts.
 */
public final class ProjectionsInJvm {

    private ProjectionsInJvm() {
    }

    /**
     * Waits up to {@code timeout} until {@code names} (all when none) have no mark at all — pending, failing or parked —
     * else fails with the counts.
     */
    public static IdleWait assertIdle(Projections projections, Duration timeout, String... names) {
        IdleWait wait = projections.awaitIdle(timeout, names);
        if (!wait.idle()) {
            throw new AssertionError("not idle after " + timeout + ": pending " + wait.pending() + ", failing "
                    + wait.failing() + ", parked " + wait.parked());
        }
        return wait;
    }

    /**
     * Makes the marks of {@code names} (all when none) that wait for a retry due now, and waits up to {@code timeout}
     * for their refresh.
     */
    public static IdleWait refreshNowAndAwait(Projections projections, Duration timeout, String... names) {
        projections.refreshNow(names);
        return assertIdle(projections, timeout, names);
    }
}
