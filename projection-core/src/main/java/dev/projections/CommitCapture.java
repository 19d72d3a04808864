package dev.projections;

import java.time.Duration;

/**
 * Collects the marks this thread's transactions commit while it is open (docs/contract.md §14); opened by
 * {@link Projections#captureCommits()}, closed by try-with-resources:
 * <pre>{@code
 * try (CommitCapture capture = projections.captureCommits()) {
 *     orders.place(order);                       // an EJB or @Transactional method: committed when it returns
 *     RefreshWait wait = capture.await(Duration.ofSeconds(2));
 *     if (!wait.refreshed()) { ... }             // the read models may still show the order's previous state
 * }
 * }</pre>
 * Only commits on the thread that opened it are seen (not an {@code @Asynchronous} method's). Captures nest: each sees
 * the commits made while it is open.
 */
public interface CommitCapture extends AutoCloseable {

    /** The keys committed so far and the time of the last of those commits. */
    RefreshToken token();

    /** {@link Projections#await}{@code (token(), timeout)}. */
    RefreshWait await(Duration timeout);

    /** Stops collecting; a token taken before can still be awaited. */
    @Override
    void close();
}
