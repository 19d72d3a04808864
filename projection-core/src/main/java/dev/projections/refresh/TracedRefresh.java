package dev.projections.refresh;

import dev.projections.spi.RefreshTracing;
import dev.projections.store.ClaimedMark;
import dev.projections.store.PendingChecks;
import java.time.Duration;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One refresh's span (docs/contract.md §9, tracing): begun on the drainer's thread before the refresh's transaction,
 * once the marks' trace contexts are read in a short transaction of their own, so that the projection's work runs
 * under it; ended after the refresh's transaction with how it ended. When tracing is off nothing is read and nothing
 * started. Tracing never fails a refresh: a read or a tracer that fails leaves it untraced. {@link #end} is idempotent,
 * so a caller may end it again in a {@code finally} for the paths that throw past its catch.
 */
final class TracedRefresh {

    private static final Logger LOG = Logger.getLogger(TracedRefresh.class.getName());

    static final String REFRESHED = "refreshed";
    static final String FAILED = "failed";
    static final String GIVEN_BACK = "given-back";

    /** The read of the trace contexts: primary-key reads, never worth holding a refresh for long. */
    private static final Duration READ_TIMEOUT = Duration.ofSeconds(5);

    private final RefreshTracing tracing;
    private final PendingChecks checks;
    private final Transactions transactions;
    private RefreshTracing.Span span = RefreshTracing.Span.NONE;

    TracedRefresh(RefreshTracing tracing, PendingChecks checks, Transactions transactions) {
        this.tracing = tracing;
        this.checks = checks;
        this.transactions = transactions;
    }

    /** Before the refresh's transaction, on the drainer's thread: {@code marks} are one projection's and tenant's. */
    void begin(List<ClaimedMark> marks) {
        ClaimedMark first = marks.get(0);
        try {
            if (!tracing.enabled()) {
                return;
            }
            List<String> traceparents = transactions.inNewTransaction(READ_TIMEOUT,
                    connection -> checks.traceparents(connection, marks, RefreshTracing.MAX_LINKS));
            span = tracing.start(first.key().projection(), first.key().tenantId(), marks.size(), traceparents);
        } catch (Exception | LinkageError e) {
            LOG.log(Level.FINE, "the refresh of " + marks.size() + " marks of " + first.key().projection()
                    + " goes untraced", e);
        }
    }

    /** After the refresh's transaction, on the same thread; once only, later calls do nothing. */
    void end(String outcome, Throwable failure) {
        RefreshTracing.Span begun = span;
        span = RefreshTracing.Span.NONE;
        try {
            begun.end(outcome, failure);
        } catch (RuntimeException | LinkageError e) {
            LOG.log(Level.FINE, "ending the span of a refresh failed", e);
        }
    }
}
