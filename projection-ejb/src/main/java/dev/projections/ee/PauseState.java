package dev.projections.ee;

import dev.projections.engine.Foundation;
import dev.projections.refresh.PauseCopy;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Which projections are paused, as {@code projection_control} says, read at most once a second ({@link PauseCopy}: a
 * drainer never waits for another's re-read of an aged copy). The claim query reads the table itself; this copy serves
 * the check before each refresh starts (docs/contract.md §4 step 2), so marks claimed just before a pause are released
 * unstarted.
 */
@ApplicationScoped
public class PauseState {

    @Inject
    Foundation foundation;

    private PauseCopy copy;

    @PostConstruct
    void init() {
        copy = new PauseCopy(() -> {
            try (Connection connection = foundation.dataSource().getConnection()) {
                return foundation.store().control().paused(connection);
            }
        }, System::nanoTime, 1, TimeUnit.SECONDS);
    }

    public Set<String> paused() {
        return copy.paused();
    }

    /** Forgets the cached copy, after this instance paused or resumed a projection. */
    public void invalidate() {
        copy.invalidate();
    }
}
