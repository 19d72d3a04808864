package dev.projections.ee;

import dev.projections.FailedRefresh;
import dev.projections.MarkKey;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.List;

/** Counts of waiting and failing marks, and retries that keep the attempts (docs/contract.md §2, §6). */
@ApplicationScoped
public class FailingMarks {

    @Inject
    EngineResources resources;

    @Inject
    ProjectionRegistry registry;

    @Inject
    AfterCommitDrainer drainer;

    long pending(String projection) {
        ArgumentChecks.projection(projection, registry);
        return read("count pending marks of " + projection, c -> resources.counts().pending(c, projection));
    }

    long failing(String projection) {
        ArgumentChecks.projection(projection, registry);
        return read("count failing marks of " + projection, c -> resources.counts().failing(c, projection));
    }

    List<FailedRefresh> failures(String projection, int limit) {
        ArgumentChecks.projection(projection, registry);
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be >= 1, was " + limit);
        }
        return read("list failing marks of " + projection, c -> resources.counts().failures(c, projection, limit));
    }

    int retryFailed(String projection) {
        ArgumentChecks.projection(projection, registry);
        int retried = read("retry failing marks of " + projection,
                c -> resources.store().actions().retryFailed(c, projection, resources.clock().instant()));
        if (retried > 0) {
            drainer.start();
        }
        return retried;
    }

    void retry(String projection, String tenant, String id) {
        ArgumentChecks.projection(projection, registry);
        if (tenant == null) {
            throw new IllegalArgumentException("tenant must not be null (use \"\" for none), projection " + projection);
        }
        MarkKey key = new MarkKey(projection, ArgumentChecks.tenant(tenant), ArgumentChecks.id(id, projection));
        boolean retried = read("retry " + key, c -> resources.store().actions().retry(c, key, resources.clock().instant()));
        if (!retried) {
            throw new IllegalArgumentException("no failing mark " + key + " to retry");
        }
        drainer.start();
    }

    private <T> T read(String what, SqlCalls.Work<T> call) {
        return SqlCalls.call(resources, what, call);
    }
}
