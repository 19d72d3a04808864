package dev.projections.lifecycle;

import dev.projections.RebuildProgress;

/**
 * A rebuild run ended (docs/contract.md §7): its {@link RebuildProgress#state() state} is {@code FINISHED},
 * {@code FINISHED_FAILING} (every id refreshed but some failing), {@code FAILED} (its ids could not be listed; see
 * {@code lastError}) or {@code CANCELLED}; its counts and times are the run's at its end. The moment to switch a new
 * read model live.
 */
public record RebuildEnded(RebuildProgress run) implements LifecycleEvent {

    @Override
    public String projection() {
        return run.projection();
    }

    public String state() {
        return run.state();
    }
}
