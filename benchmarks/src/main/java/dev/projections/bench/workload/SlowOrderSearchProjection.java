package dev.projections.bench.workload;

import java.util.List;

/**
 * An I/O-bound projection: besides its SQL it waits 5 ms per id, as one that calls a search index or another service
 * would. Its throughput is bounded by waiting, not by the database, which is what adding instances can help with.
 */
public final class SlowOrderSearchProjection extends SetBasedOrderSearchProjection {

    static final long MILLIS_PER_ID = 5;

    @Override
    public void refresh(String id) throws Exception {
        super.refresh(id);
        Thread.sleep(MILLIS_PER_ID);
    }

    @Override
    public void refreshAll(List<String> ids) throws Exception {
        super.refreshAll(ids);
        Thread.sleep(MILLIS_PER_ID * ids.size());
    }
}
