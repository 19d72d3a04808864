package dev.projections.ee;

import dev.projections.engine.Foundation;
import dev.projections.MarksCommitted;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.Set;

/**
 * Hands committed keys to the drainers, on the committing thread after a successful commit, before
 * {@link MarksCommitted} is announced. It only queues a drainer on the {@link DrainerPool}: a synchronous REQUIRED EJB
 * called here would find the finished transaction still on the thread (docs/pitfalls.md #5).
 */
@ApplicationScoped
public class HandoffObserver {

    @Inject
    Foundation foundation;

    @Inject
    EngineRuntime runtime;

    void handOver(Set<dev.projections.MarkKey> keys) {
        if (!foundation.settings().autoRefresh()) {
            return;
        }
        runtime.assembled().drainers().committed(keys);
    }
}
