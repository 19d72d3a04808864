package dev.projections;

import java.time.Duration;
import java.util.Set;

/**
 * How a read-your-writes wait ended (docs/contract.md §14): {@code waited} is how long it took, {@code notRefreshed}
 * the keys whose refresh it did not see (every key when it did not wait). A timeout is an answer, never an error.
 */
public record RefreshWait(Result result, Duration waited, Set<MarkKey> notRefreshed) {

    public enum Result {
        /** Every key was refreshed by a refresh that read the commit (on any instance). */
        REFRESHED,
        /** The timeout passed first; the keys are refreshed later as usual. */
        TIMED_OUT,
        /**
         * Not waited at all: called inside a transaction (the wait would hold its locks against the refresh it waits
         * for), as many threads already waiting as {@code projection.await-max-waiters} allows, the engine disabled
         * or stopping.
         */
        NOT_WAITED
    }

    public RefreshWait {
        notRefreshed = Set.copyOf(notRefreshed);
    }

    /** Whether the wait saw every key refreshed. */
    public boolean refreshed() {
        return result == Result.REFRESHED;
    }
}
