package dev.projections.ee;

import dev.projections.MarksCommitted;
import dev.projections.refresh.DrainerOrigin;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;

/**
 * Hands committed keys to the drainers. It observes the plain {@link MarksCommitted} event, fired on the
 * committing thread after a successful commit, and only calls an {@code @Asynchronous} method: a synchronous
 * REQUIRED EJB would find the finished transaction still on the thread (STACK.md pitfall 5).
 */
@ApplicationScoped
public class HandoffObserver {

    @Inject
    EngineResources resources;

    @Inject
    DrainerStarter starter;

    void onCommit(@Observes MarksCommitted committed) {
        if (!resources.settings().autoRefresh()) {
            return;
        }
        if (resources.handoff().offer(committed.keys()) > 0) {
            starter.startReserved(DrainerOrigin.HANDOFF);
        }
        if (resources.handoff().takeSweepRequest()) {
            starter.startIfSlotFree(DrainerOrigin.SWEEP);
        }
    }
}
