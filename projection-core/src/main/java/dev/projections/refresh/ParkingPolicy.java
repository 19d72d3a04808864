package dev.projections.refresh;

import dev.projections.NonRetryableRefreshException;
import dev.projections.config.ProjectionSettings;
import java.util.List;

/**
 * Whether a failed refresh parks its mark rather than backing off (docs/contract.md §6): at once when the failure
 * is not retryable — a {@link NonRetryableRefreshException}, or a type listed in {@code projection.non-retryable},
 * anywhere in its chain of causes (a JTA rollback wraps what the projection threw) — else once it has failed
 * {@code projection.max-attempts} times.
 */
final class ParkingPolicy {

    private final ProjectionSettings settings;
    private final List<String> nonRetryable;

    /** For a mark of the projection whose settings these are ({@code projection.<name>.non-retryable}, …). */
    ParkingPolicy(ProjectionSettings settings) {
        this.settings = settings;
        this.nonRetryable = settings.nonRetryable();
    }

    boolean parks(Throwable failure, int attemptsNow) {
        return notRetryable(failure) || settings.parksAfter(attemptsNow);
    }

    boolean notRetryable(Throwable failure) {
        int depth = 0;
        // bounded: a chain of causes may loop (A caused by B caused by A)
        for (Throwable t = failure; t != null && depth++ < 64; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof NonRetryableRefreshException || isListed(t.getClass())) {
                return true;
            }
        }
        return false;
    }

    private boolean isListed(Class<?> type) {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            if (nonRetryable.contains(c.getName())) {
                return true;
            }
        }
        return false;
    }
}
