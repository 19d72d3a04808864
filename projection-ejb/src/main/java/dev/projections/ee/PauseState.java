package dev.projections.ee;

import dev.projections.engine.Foundation;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Set;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Which projections are paused, as {@code projection_control} says, read at most once a second. The claim query
 * reads the table itself; this copy serves the check before each refresh starts (docs/contract.md §4 step 2), so marks
 * claimed just before a pause are released unstarted.
 */
@ApplicationScoped
public class PauseState {

    private static final Logger LOG = Logger.getLogger(PauseState.class.getName());
    private static final long MAX_AGE_NANOS = 1_000_000_000L;

    @Inject
    Foundation foundation;

    private Set<String> paused = Set.of();
    private long readAt = Long.MIN_VALUE;

    public synchronized Set<String> paused() {
        long now = System.nanoTime();
        if (readAt == Long.MIN_VALUE || now - readAt > MAX_AGE_NANOS) {
            try (Connection connection = foundation.dataSource().getConnection()) {
                paused = Set.copyOf(foundation.store().control().paused(connection));
                readAt = now;
            } catch (SQLException e) {
                LOG.log(Level.FINE, "could not read projection_control; keeping the last known pauses", e);
            }
        }
        return paused;
    }

    /** Forgets the cached copy, after this instance paused or resumed a projection. */
    public synchronized void invalidate() {
        readAt = Long.MIN_VALUE;
    }
}
