package dev.projections.ops;

import dev.projections.inspect.AuditEntry;
import dev.projections.inspect.AuditLog;
import dev.projections.lifecycle.LifecycleListener;
import dev.projections.lifecycle.ProjectionResumed;
import dev.projections.lifecycle.ProjectionSuspended;
import dev.projections.refresh.ProjectionCatalog;
import dev.projections.store.ControlTable;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;

/**
 * Pausing, suspending and resuming a projection on every instance, through {@code projection_control}
 * (docs/contract.md §2), each recorded with the caller's name. {@code pausesChanged} is told after each change (the
 * EE layer forgets its cached copy of the pauses), {@code madeDue} after a resume, and {@code events} of a suspension
 * and of a resume that ended a pause or suspension — the EE layer tells the application once the caller's
 * transaction committed. Each change writes its {@code projection_audit} row on the change's own connection, after
 * it, so the two commit together in the caller's transaction (docs/contract.md §12); a row the database refuses fails
 * the change as a {@link DatabaseFailure}.
 */
public final class PauseOperations {

    private final Sql sql;
    private final ControlTable control;
    private final Clock clock;
    private final ProjectionCatalog catalog;
    private final Runnable pausesChanged;
    private final Runnable madeDue;
    private final LifecycleListener events;
    private final AuditLog audit = new AuditLog();

    public PauseOperations(Sql sql, ControlTable control, Clock clock, ProjectionCatalog catalog, Runnable pausesChanged,
                           Runnable madeDue) {
        this(sql, control, clock, catalog, pausesChanged, madeDue, LifecycleListener.NONE);
    }

    public PauseOperations(Sql sql, ControlTable control, Clock clock, ProjectionCatalog catalog, Runnable pausesChanged,
                           Runnable madeDue, LifecycleListener events) {
        this.events = events;
        this.sql = sql;
        this.control = control;
        this.clock = clock;
        this.catalog = catalog;
        this.pausesChanged = pausesChanged;
        this.madeDue = madeDue;
    }

    public void pause(String projection, String by) {
        UnknownProjection.requireKnown(projection, catalog);
        sql.call("pause " + projection, c -> {
            control.setPaused(c, projection, true, by, clock.instant());
            record(c, by, "pause", projection, null);
            return null;
        });
        pausesChanged.run();
    }

    public void resume(String projection, String by) {
        UnknownProjection.requireKnown(projection, catalog);
        boolean wasPaused = sql.call("resume " + projection, c -> {
            boolean was = control.resumeIfPaused(c, projection, by, clock.instant());
            record(c, by, "resume", projection, null);
            return was;
        });
        pausesChanged.run();
        madeDue.run();
        if (wasPaused) {
            events.on(new ProjectionResumed(projection, by, clock.instant()));
        }
    }

    /** Pauses {@code projection} with a reason: probed, and lifted when a probe succeeds or on a resume. */
    public void suspend(String projection, String reason, String by) {
        UnknownProjection.requireKnown(projection, catalog);
        if (reason == null || reason.isBlank() || reason.length() > 1000) {
            throw new IllegalArgumentException("a suspension needs a reason of 1..1000 characters, was "
                    + (reason == null ? null : reason.length() + " characters"));
        }
        sql.call("suspend " + projection, c -> {
            control.suspend(c, projection, reason, by, clock.instant());
            record(c, by, "suspend", projection, reason);
            return null;
        });
        pausesChanged.run();
        events.on(new ProjectionSuspended(projection, reason, by, clock.instant()));
    }

    public boolean isPaused(String projection) {
        UnknownProjection.requireKnown(projection, catalog);
        return sql.call("read the pause of " + projection, c -> control.paused(c).contains(projection));
    }

    private void record(Connection connection, String by, String action, String projection, String detail)
            throws SQLException {
        audit.record(connection, AuditEntry.of(clock.instant(), by, action, projection, null, null, detail));
    }
}
