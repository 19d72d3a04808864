package dev.projections.spi;

import java.util.List;
import java.util.regex.Pattern;

/**
 * Where a tracer follows a change from the business transaction that marked it to the refresh that caught up with it
 * (docs/contract.md §9, tracing): the mark writer asks for the committing thread's trace context and stores it beside
 * the mark ({@code projection_pending.traceparent}); a refresh of marks runs in a span linked to each of theirs. Off by
 * default ({@link #NONE}): then no trace context is asked for, stored or read. The module
 * {@code projection-opentelemetry} implements it where the server runs OpenTelemetry. Implementations must not throw.
 */
public interface RefreshTracing {

    /** At most this many links on one refresh span (OpenTelemetry's default span link limit). */
    int MAX_LINKS = 128;

    /** A W3C {@code traceparent} of version 00: what {@code projection_pending.traceparent} (55 characters) holds. */
    Pattern TRACEPARENT = Pattern.compile("00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}");

    /** Whether refreshes are traced: only then are the marks' trace contexts written and read. */
    boolean enabled();

    /** The calling thread's trace context as a W3C {@code traceparent}, {@code null} without a sampled one. */
    String currentTraceparent();

    /**
     * Starts the span of a refresh of {@code keys} marks of {@code projection} and {@code tenant}, linked to each of
     * {@code traceparents} (distinct, at most {@link #MAX_LINKS}), and makes it current on this thread until it ends.
     */
    Span start(String projection, String tenant, int keys, List<String> traceparents);

    /** A refresh's span. */
    interface Span {

        /**
         * Ends the span on the thread that started it: {@code outcome} is {@code refreshed}, {@code failed} or
         * {@code given-back}; {@code failure} what ended it, or {@code null}.
         */
        void end(String outcome, Throwable failure);

        Span NONE = (outcome, failure) -> { };
    }

    RefreshTracing NONE = new RefreshTracing() {
        @Override
        public boolean enabled() {
            return false;
        }

        @Override
        public String currentTraceparent() {
            return null;
        }

        @Override
        public Span start(String projection, String tenant, int keys, List<String> traceparents) {
            return Span.NONE;
        }
    };
}
