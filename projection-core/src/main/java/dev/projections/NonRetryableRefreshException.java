package dev.projections;

/**
 * Thrown by a {@link Projection}'s refresh (or anything it calls) when trying again cannot help — the data
 * itself is wrong, a value does not fit the read model. The mark is parked at once instead of backing off:
 * kept with its error, never claimed again until an operator resumes or skips it (docs/contract.md §6). A
 * projection can also name exception types to be treated so with {@code projection.non-retryable}.
 */
public class NonRetryableRefreshException extends RuntimeException {

    public NonRetryableRefreshException(String message) {
        super(message);
    }

    public NonRetryableRefreshException(String message, Throwable cause) {
        super(message, cause);
    }
}
