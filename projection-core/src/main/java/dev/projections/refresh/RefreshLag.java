package dev.projections.refresh;

import dev.projections.MarkKey;
import java.time.Instant;

/**
 * Told after each refresh that committed (refreshed or marked anew meanwhile) when the change it caught up with was
 * first marked ({@code first_marked_at}, as claimed) and when the refresh committed, in the engine's clock: the key's
 * lag, the meter {@code projection.lag} (docs/contract.md §9). Called on the drainer's thread; it must not throw.
 */
@FunctionalInterface
public interface RefreshLag {

    void refreshed(MarkKey key, Instant firstMarkedAt, Instant committedAt);

    RefreshLag NONE = (key, firstMarkedAt, committedAt) -> { };
}
