package dev.projections;

import java.time.Instant;
import java.util.Set;
import java.util.Objects;

/**
 * What a thread's committed transactions marked, to wait for with {@link Projections#await} (docs/contract.md §14):
 * the keys and when the last of those commits returned, in this instance's clock. A token with no keys (nothing was
 * marked on the capturing thread) has nothing to wait for: {@code REFRESHED} at once, outside a transaction.
 */
public record RefreshToken(Set<MarkKey> keys, Instant committedAt) {

    public RefreshToken {
        keys = Set.copyOf(keys);
        Objects.requireNonNull(committedAt, "committedAt");
    }
}
