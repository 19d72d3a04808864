package dev.projections.refresh;

import dev.projections.MarkKey;
import dev.projections.config.Settings;
import dev.projections.store.ClaimedMark;
import java.util.List;

/**
 * The engine one step at a time, for tests that switch {@code projection.auto-refresh} off and play the workers
 * themselves: the same claim and the same refresh a drainer runs, without the drain loop around them.
 */
public final class EngineSteps {

    private final Claimer claimer;
    private final BatchRefresher refresher;
    private final ProjectionCatalog catalog;
    private final Settings settings;

    EngineSteps(Claimer claimer, BatchRefresher refresher, ProjectionCatalog catalog, Settings settings) {
        this.claimer = claimer;
        this.refresher = refresher;
        this.catalog = catalog;
        this.settings = settings;
    }

    /** Claims those of {@code keys} that are due and unleased, in a committed transaction of its own. */
    public List<ClaimedMark> claim(List<MarkKey> keys) {
        return claimer.claim(keys, catalog.claimable());
    }

    /** Claims due marks of every claimable projection, at most {@code batch-size}. */
    public List<ClaimedMark> claimDue() {
        return claimer.claimDue(catalog.claimable(), settings.batchSize());
    }

    /** Starts (or releases) and refreshes claimed marks, exactly as a drainer does. */
    public void refresh(List<ClaimedMark> claimed) {
        refresher.process(new ClaimedBatch(claimed), () -> false);
    }
}
