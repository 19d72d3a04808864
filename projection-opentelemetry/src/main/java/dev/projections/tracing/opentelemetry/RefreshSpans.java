package dev.projections.tracing.opentelemetry;

import dev.projections.spi.RefreshTracing;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import java.util.List;

/**
 * Refresh spans on an OpenTelemetry tracer: a refresh's span is a root (the drainer's thread has no parent for it)
 * linked to the span of each business transaction that marked a key of it, as the W3C {@code traceparent} the mark
 * writer stored; a trace context that cannot be read is skipped.
 */
final class RefreshSpans implements RefreshTracing {

    static final String INSTRUMENTATION = "dev.projections";
    static final AttributeKey<String> PROJECTION = AttributeKey.stringKey("projection.name");
    static final AttributeKey<String> TENANT = AttributeKey.stringKey("projection.tenant");
    static final AttributeKey<Long> KEYS = AttributeKey.longKey("projection.keys");
    static final AttributeKey<Long> LINKS = AttributeKey.longKey("projection.linked_transactions");
    static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("projection.outcome");
    private static final String FAILED = "failed";

    private final Tracer tracer;

    private RefreshSpans(Tracer tracer) {
        this.tracer = tracer;
    }

    /**
     * Refresh spans on {@code openTelemetry}'s tracer, {@code null} when it does not record: a span it starts has no
     * valid context (the no-op tracer of a disabled SDK). The probe span is never ended, so never exported.
     */
    static RefreshSpans of(OpenTelemetry openTelemetry) {
        Tracer tracer = openTelemetry.getTracer(INSTRUMENTATION);
        boolean records = tracer.spanBuilder("projections probe").setNoParent().startSpan().getSpanContext().isValid();
        return records ? new RefreshSpans(tracer) : null;
    }

    @Override
    public boolean enabled() {
        return true;
    }

    /** The current span's context when it is sampled: an unsampled one would link to nothing a backend keeps. */
    @Override
    public String currentTraceparent() {
        SpanContext context = io.opentelemetry.api.trace.Span.current().getSpanContext();
        if (!context.isValid() || !context.isSampled()) {
            return null;
        }
        return "00-" + context.getTraceId() + "-" + context.getSpanId() + "-" + context.getTraceFlags().asHex();
    }

    @Override
    public RefreshTracing.Span start(String projection, String tenant, int keys, List<String> traceparents) {
        SpanBuilder builder = tracer.spanBuilder("refresh " + projection).setNoParent().setSpanKind(SpanKind.INTERNAL)
                .setAttribute(PROJECTION, projection).setAttribute(KEYS, (long) keys);
        if (!tenant.isEmpty()) { // absent for the marks without a tenant
            builder.setAttribute(TENANT, tenant);
        }
        long links = 0;
        for (String traceparent : traceparents) {
            SpanContext linked = parse(traceparent);
            if (linked != null && links < MAX_LINKS) {
                builder.addLink(linked);
                links++;
            }
        }
        // fully named: RefreshTracing's own Span shadows the import here
        io.opentelemetry.api.trace.Span span = builder.setAttribute(LINKS, links).startSpan();
        Scope scope;
        try {
            scope = span.makeCurrent();
        } catch (RuntimeException e) {
            span.end();
            throw e;
        }
        return (outcome, failure) -> {
            span.setAttribute(OUTCOME, outcome);
            if (failure != null) {
                span.recordException(failure);
            }
            if (FAILED.equals(outcome)) {
                span.setStatus(StatusCode.ERROR, "the refresh failed");
            }
            scope.close();
            span.end();
        };
    }

    /** {@code 00-<32 hex trace id>-<16 hex span id>-<2 hex flags>}, or {@code null} for anything else. */
    static SpanContext parse(String traceparent) {
        if (traceparent == null || traceparent.length() != 55 || !traceparent.startsWith("00-")
                || traceparent.charAt(35) != '-' || traceparent.charAt(52) != '-') {
            return null;
        }
        String traceId = traceparent.substring(3, 35);
        String spanId = traceparent.substring(36, 52);
        String flags = traceparent.substring(53, 55);
        if (!flags.matches("[0-9a-f]{2}")) {
            return null;
        }
        SpanContext context = SpanContext.createFromRemoteParent(traceId, spanId,
                TraceFlags.fromByte((byte) Integer.parseInt(flags, 16)), TraceState.getDefault());
        return context.isValid() ? context : null;
    }
}
