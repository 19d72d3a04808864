package dev.projections.refresh;

import dev.projections.store.ClaimedMark;
import dev.projections.store.PendingQueue;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One refresh's span (docs/contract.md §9, tracing): begun inside the refresh's transaction, where the marks' trace
 * contexts are read by their keys, so that the projection's own work runs under it; ended by the drainer after the
 * transaction, with how it ended. When tracing is off nothing is read and nothing started. A tracer that throws
 * leaves the refresh untraced, never failed.
 */
final class TracedRefresh {

    private static final Logger LOG = Logger.getLogger(TracedRefresh.class.getName());

    static final String REFRESHED = "refreshed";
    static final String FAILED = "failed";
    static final String GIVEN_BACK = "given-back";

    private final RefreshTracing tracing;
    private final PendingQueue queue;
    private RefreshTracing.Span span = RefreshTracing.Span.NONE;

    TracedRefresh(RefreshTracing tracing, PendingQueue queue) {
        this.tracing = tracing;
        this.queue = queue;
    }

    /** In the refresh's transaction, before the projection runs: {@code marks} are one projection's and tenant's. */
    void begin(Connection connection, List<ClaimedMark> marks) throws SQLException {
        if (!tracing.enabled()) {
            return;
        }
        List<String> traceparents = queue.traceparents(connection, marks, RefreshTracing.MAX_LINKS);
        ClaimedMark first = marks.get(0);
        try {
            span = tracing.start(first.key().projection(), first.key().tenantId(), marks.size(), traceparents);
        } catch (RuntimeException e) {
            LOG.log(Level.FINE, "starting the span of a refresh of " + first.key().projection() + " failed", e);
        }
    }

    /** After the transaction, on the same thread. */
    void end(String outcome, Throwable failure) {
        RefreshTracing.Span begun = span;
        span = RefreshTracing.Span.NONE;
        try {
            begun.end(outcome, failure);
        } catch (RuntimeException e) {
            LOG.log(Level.FINE, "ending the span of a refresh failed", e);
        }
    }
}
