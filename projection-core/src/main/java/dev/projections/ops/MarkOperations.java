package dev.projections.ops;

import dev.projections.FailedRefresh;
import dev.projections.MarkKey;
import dev.projections.ParkedSelection;
import dev.projections.inspect.AuditEntry;
import dev.projections.inspect.AuditLog;
import dev.projections.inspect.PendingCounts;
import dev.projections.refresh.ProjectionCatalog;
import dev.projections.store.MarkActions;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;

/**
 * Counting failing and parked marks, and the actions on them (docs/contract.md §2, §6): a retry makes failing marks
 * due now keeping their attempts, a resume does so for parked ones, a skip deletes parked ones. What an action made
 * due is announced to {@code madeDue} (the EE layer starts a drainer once the caller's transaction commits).
 * Each action writes its {@code projection_audit} row on the action's own connection, after the action's statements,
 * under the caller's name {@code by}: the two commit together in the caller's transaction, and a refused action
 * leaves neither (docs/contract.md §12). A row the database refuses fails the action as a {@link DatabaseFailure}.
 */
public final class MarkOperations {

    private final Sql sql;
    private final MarkActions actions;
    private final PendingCounts counts;
    private final Clock clock;
    private final ProjectionCatalog catalog;
    private final Runnable madeDue;
    private final Duration orphanedAfter;
    private final AuditLog audit = new AuditLog();

    /** @param orphanedAfter how long no instance deployed a projection before its marks may be purged */
    public MarkOperations(Sql sql, MarkActions actions, PendingCounts counts, Clock clock, ProjectionCatalog catalog,
                          Runnable madeDue, Duration orphanedAfter) {
        this.sql = sql;
        this.actions = actions;
        this.counts = counts;
        this.clock = clock;
        this.catalog = catalog;
        this.madeDue = madeDue;
        this.orphanedAfter = orphanedAfter;
    }

    public long pending(String projection) {
        UnknownProjection.requireKnown(projection, catalog);
        return sql.call("count pending marks of " + projection, c -> counts.pending(c, projection));
    }

    public long failing(String projection) {
        UnknownProjection.requireKnown(projection, catalog);
        return sql.call("count failing marks of " + projection, c -> counts.failing(c, projection));
    }

    public long parked(String projection) {
        UnknownProjection.requireKnown(projection, catalog);
        return sql.call("count parked marks of " + projection, c -> counts.parked(c, projection));
    }

    public List<FailedRefresh> failures(String projection, int limit) {
        UnknownProjection.requireKnown(projection, catalog);
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be >= 1, was " + limit);
        }
        return sql.call("list failing marks of " + projection, c -> counts.failures(c, projection, limit));
    }

    /** Makes every failing, unparked mark of {@code projection} due now; returns how many. */
    public int retryFailed(String projection, String by) {
        return retryFailed(projection, null, null, by);
    }

    /**
     * Makes the failing, unparked marks of {@code projection} due now: of one tenant ({@code ""} for none,
     * {@code null} for every tenant) and with a last error starting with {@code errorPrefix} ({@code null}: any).
     */
    public int retryFailed(String projection, String tenant, String errorPrefix, String by) {
        UnknownProjection.requireKnown(projection, catalog);
        String checkedTenant = tenant == null ? null : MarkKey.checkedTenant(tenant);
        if (errorPrefix != null && (errorPrefix.isEmpty() || errorPrefix.length() > 500)) {
            throw new IllegalArgumentException("an error prefix must be 1..500 characters (null for any error), was "
                    + errorPrefix.length());
        }
        int retried = sql.call("retry failing marks of " + projection, c -> {
            int made = actions.retryFailed(c, projection, checkedTenant, errorPrefix, clock.instant());
            record(c, by, "retry-failed", projection, checkedTenant, null, describe(made, errorPrefix));
            return made;
        });
        if (retried > 0) {
            madeDue.run();
        }
        return retried;
    }

    /** Makes one failing mark due now; a key with no failing mark is refused, naming it. */
    public void retry(String projection, String tenant, String id, String by) {
        UnknownProjection.requireKnown(projection, catalog);
        if (tenant == null) {
            throw new IllegalArgumentException("tenant must not be null (use \"\" for none), projection " + projection);
        }
        MarkKey key = new MarkKey(projection, MarkKey.checkedTenant(tenant), MarkKey.checkedId(id, projection));
        boolean retried = sql.call("retry " + key, c -> {
            boolean made = actions.retry(c, key, clock.instant());
            if (made) {
                record(c, by, "retry", projection, tenant, id, null);
            }
            return made;
        });
        if (!retried) {
            throw new NoSuchMark(key, "failing", "retry");
        }
        madeDue.run();
    }

    /** Makes the selected parked marks due now, attempts kept; returns how many. */
    public int resumeParked(ParkedSelection selection, String by) {
        check(selection);
        int resumed = sql.call("resume parked marks of " + selection.projection(), c -> {
            int made = actions.resumeParked(c, selection, clock.instant());
            record(c, by, "resume-parked", selection.projection(), selection.tenant(), selection.entityId(),
                    describe(made, selection.errorPrefix()));
            return made;
        });
        if (resumed > 0) {
            madeDue.run();
        }
        return resumed;
    }

    /** Deletes the selected parked marks, one audit row per key with its attempts and last error; returns how many. */
    public int skipParked(ParkedSelection selection, String by) {
        check(selection);
        return sql.call("skip parked marks of " + selection.projection(), c -> {
            List<FailedRefresh> skipped = actions.skipParked(c, selection);
            for (FailedRefresh mark : skipped) {
                record(c, by, "skip-parked", selection.projection(), mark.tenant(), mark.id(),
                        "after " + mark.attempts() + " attempts: " + mark.lastError());
            }
            return skipped.size();
        });
    }

    private void check(ParkedSelection selection) {
        if (selection == null) {
            throw new IllegalArgumentException("selection must not be null");
        }
        UnknownProjection.requireKnown(selection.projection(), catalog);
        if (selection.tenant() != null) {
            MarkKey.checkedTenant(selection.tenant());
        }
        if (selection.entityId() != null) {
            MarkKey.checkedId(selection.entityId(), selection.projection());
        }
    }

    /** Refuses a purge without a projection name, or of a projection this instance deploys. */
    public void checkPurgeable(String projection) {
        if (projection == null || projection.isBlank()) {
            throw new IllegalArgumentException("purge needs a projection name, was " + projection);
        }
        if (catalog.names().contains(projection)) {
            throw new IllegalStateException("projection " + projection + " is deployed here: its marks are not purged");
        }
    }

    /**
     * Deletes the marks of {@code projection}, which this instance does not deploy, when no instance has deployed it
     * for {@code orphanedAfter} (no {@code projection_instance} row newer, checked in the delete itself); returns how
     * many.
     */
    public int purge(String projection, String by) {
        checkPurgeable(projection);
        return sql.call("purge the marks of " + projection, c -> {
            int purged = actions.purgeOrphaned(c, projection, clock.instant(), orphanedAfter);
            record(c, by, "purge", projection, null, null, purged + " marks");
            return purged;
        });
    }

    private static String describe(int count, String errorPrefix) {
        return count + " marks" + (errorPrefix == null ? "" : " with error \"" + errorPrefix + "…\"");
    }

    /** Writes the action's audit row on the action's connection. */
    private void record(Connection connection, String by, String action, String projection, String tenant,
                        String id, String detail) throws SQLException {
        audit.record(connection, AuditEntry.of(clock.instant(), by, action, projection, tenant, id, detail));
    }
}
