package dev.projections.ee;

import dev.projections.MarksCommitted;
import dev.projections.refresh.DrainerOrigin;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

/**
 * Hands committed keys to the drainers, on the committing thread after a successful commit, before
 * {@link MarksCommitted} is announced. It only queues a drainer on the {@link DrainerPool}: a synchronous REQUIRED EJB
 * called here would find the finished transaction still on the thread (docs/pitfalls.md #5).
 */
@ApplicationScoped
public class HandoffObserver {

    @Inject
    EngineResources resources;

    @Inject
    DrainerStarter starter;

    void handOver(java.util.Set<dev.projections.MarkKey> keys) {
        if (!resources.settings().autoRefresh()) {
            return;
        }
        dev.projections.refresh.Handoff.Slot slot = resources.handoff().offer(keys);
        if (slot != null) {
            starter.start(DrainerOrigin.HANDOFF, slot);
        }
        if (resources.handoff().takeSweepRequest()) {
            starter.startIfSlotFree(DrainerOrigin.SWEEP);
        }
    }
}
