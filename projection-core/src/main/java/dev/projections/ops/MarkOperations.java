package dev.projections.ops;

import dev.projections.FailedRefresh;
import dev.projections.MarkKey;
import dev.projections.ParkedSelection;
import dev.projections.inspect.PendingCounts;
import dev.projections.refresh.ProjectionCatalog;
import dev.projections.store.MarkActions;
import java.time.Clock;
import java.time.Duration;
import java.util.List;

/**
 * Counting failing and parked marks, and the actions on them (docs/contract.md §2, §6): a retry makes failing marks
 * due now keeping their attempts, a resume does so for parked ones, a skip deletes parked ones. What an action made
 * due is announced to {@code madeDue} (the EE layer starts a drainer once the caller's transaction commits).
 */
public final class MarkOperations {

    private final Sql sql;
    private final MarkActions actions;
    private final PendingCounts counts;
    private final Clock clock;
    private final ProjectionCatalog catalog;
    private final Runnable madeDue;

    public MarkOperations(Sql sql, MarkActions actions, PendingCounts counts, Clock clock, ProjectionCatalog catalog,
                          Runnable madeDue) {
        this.sql = sql;
        this.actions = actions;
        this.counts = counts;
        this.clock = clock;
        this.catalog = catalog;
        this.madeDue = madeDue;
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
    public int retryFailed(String projection) {
        return retryFailed(projection, null, null);
    }

    /**
     * Makes the failing, unparked marks of {@code projection} due now: of one tenant ({@code ""} for none,
     * {@code null} for every tenant) and with a last error starting with {@code errorPrefix} ({@code null}: any).
     */
    public int retryFailed(String projection, String tenant, String errorPrefix) {
        UnknownProjection.requireKnown(projection, catalog);
        String checkedTenant = tenant == null ? null : MarkKey.checkedTenant(tenant);
        if (errorPrefix != null && (errorPrefix.isEmpty() || errorPrefix.length() > 500)) {
            throw new IllegalArgumentException("an error prefix must be 1..500 characters (null for any error), was "
                    + errorPrefix.length());
        }
        int retried = sql.call("retry failing marks of " + projection,
                c -> actions.retryFailed(c, projection, checkedTenant, errorPrefix, clock.instant()));
        if (retried > 0) {
            madeDue.run();
        }
        return retried;
    }

    /** Makes one failing mark due now; a key with no failing mark is refused, naming it. */
    public void retry(String projection, String tenant, String id) {
        UnknownProjection.requireKnown(projection, catalog);
        if (tenant == null) {
            throw new IllegalArgumentException("tenant must not be null (use \"\" for none), projection " + projection);
        }
        MarkKey key = new MarkKey(projection, MarkKey.checkedTenant(tenant), MarkKey.checkedId(id, projection));
        if (!sql.call("retry " + key, c -> actions.retry(c, key, clock.instant()))) {
            throw new NoSuchMark(key, "failing", "retry");
        }
        madeDue.run();
    }

    /** Makes the selected parked marks due now, attempts kept; returns how many. */
    public int resumeParked(ParkedSelection selection) {
        check(selection);
        int resumed = sql.call("resume parked marks of " + selection.projection(),
                c -> actions.resumeParked(c, selection, clock.instant()));
        if (resumed > 0) {
            madeDue.run();
        }
        return resumed;
    }

    /** Deletes the selected parked marks; returns them as they were, key and error, for whoever audits the action. */
    public List<FailedRefresh> skipParked(ParkedSelection selection) {
        check(selection);
        return sql.call("skip parked marks of " + selection.projection(), c -> actions.skipParked(c, selection));
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
     * for {@code window} (no {@code projection_instance} row newer, checked in the delete itself); returns how many.
     */
    public int purgeOrphaned(String projection, Duration window) {
        checkPurgeable(projection);
        return sql.call("purge the marks of " + projection,
                c -> actions.purgeOrphaned(c, projection, clock.instant(), window));
    }
}
