package dev.projections.ee;

import dev.projections.FailedRefresh;
import dev.projections.ParkedSelection;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.List;

/** Parked marks: counted, resumed (due now, attempts kept) and skipped (deleted) by selection (docs/contract.md §6). */
@ApplicationScoped
public class ParkedMarks {

    @Inject
    EngineResources resources;

    @Inject
    ProjectionRegistry registry;

    @Inject
    AfterCommitDrainer drainer;

    long parked(String projection) {
        ArgumentChecks.projection(projection, registry);
        return SqlCalls.call(resources, "count parked marks of " + projection,
                c -> resources.counts().parked(c, projection));
    }

    int resume(ParkedSelection selection) {
        check(selection);
        int resumed = SqlCalls.call(resources, "resume parked marks of " + selection.projection(),
                c -> resources.store().actions().resumeParked(c, selection, resources.clock().instant()));
        if (resumed > 0) {
            drainer.start();
        }
        return resumed;
    }

    /** The skipped marks as they were, key and error, for whoever audits the action. */
    public List<FailedRefresh> skip(ParkedSelection selection) {
        check(selection);
        return SqlCalls.call(resources, "skip parked marks of " + selection.projection(),
                c -> resources.store().actions().skipParked(c, selection));
    }

    private void check(ParkedSelection selection) {
        if (selection == null) {
            throw new IllegalArgumentException("selection must not be null");
        }
        ArgumentChecks.projection(selection.projection(), registry);
        if (selection.tenant() != null) {
            ArgumentChecks.tenant(selection.tenant());
        }
        if (selection.entityId() != null) {
            ArgumentChecks.id(selection.entityId(), selection.projection());
        }
    }
}
