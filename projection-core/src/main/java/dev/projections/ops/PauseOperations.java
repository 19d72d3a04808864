package dev.projections.ops;

import dev.projections.refresh.ProjectionCatalog;
import dev.projections.store.Tables;
import java.time.Clock;

/**
 * Pausing, suspending and resuming a projection on every instance, through {@code projection_control}
 * (docs/contract.md §2), each recorded with the caller's name. {@code pausesChanged} is told after each change (the
 * EE layer forgets its cached copy of the pauses), {@code madeDue} after a resume.
 */
public final class PauseOperations {

    private final Sql sql;
    private final Tables store;
    private final Clock clock;
    private final ProjectionCatalog catalog;
    private final Runnable pausesChanged;
    private final Runnable madeDue;

    public PauseOperations(Sql sql, Tables store, Clock clock, ProjectionCatalog catalog, Runnable pausesChanged,
                           Runnable madeDue) {
        this.sql = sql;
        this.store = store;
        this.clock = clock;
        this.catalog = catalog;
        this.pausesChanged = pausesChanged;
        this.madeDue = madeDue;
    }

    public void pause(String projection, String by) {
        setPaused(projection, true, by);
    }

    public void resume(String projection, String by) {
        setPaused(projection, false, by);
        madeDue.run();
    }

    /** Pauses {@code projection} with a reason: probed, and lifted when a probe succeeds or on a resume. */
    public void suspend(String projection, String reason, String by) {
        Arguments.projection(projection, catalog);
        if (reason == null || reason.isBlank() || reason.length() > 1000) {
            throw new IllegalArgumentException("a suspension needs a reason of 1..1000 characters, was "
                    + (reason == null ? null : reason.length() + " characters"));
        }
        sql.call("suspend " + projection, c -> {
            store.control().suspend(c, projection, reason, by, clock.instant());
            return null;
        });
        pausesChanged.run();
    }

    public boolean isPaused(String projection) {
        Arguments.projection(projection, catalog);
        return sql.call("read the pause of " + projection, c -> store.control().paused(c).contains(projection));
    }

    private void setPaused(String projection, boolean paused, String by) {
        Arguments.projection(projection, catalog);
        sql.call((paused ? "pause " : "resume ") + projection, c -> {
            store.control().setPaused(c, projection, paused, by, clock.instant());
            return null;
        });
        pausesChanged.run();
    }
}
