package dev.projections.tracing.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.spi.RefreshTracing;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.LinkData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class RefreshSpansTest {

    private final InMemorySpanExporter exported = InMemorySpanExporter.create();
    private final OpenTelemetrySdk sdk = OpenTelemetrySdk.builder().setTracerProvider(SdkTracerProvider.builder()
            .addSpanProcessor(SimpleSpanProcessor.create(exported)).build()).build();
    private final RefreshSpans spans = RefreshSpans.of(sdk);

    @AfterEach
    void close() {
        sdk.close();
    }

    @Test
    void aRefreshSpanIsARootLinkedToTheSpanThatWasCurrentWhenItsKeyWasMarked() {
        String traceparent;
        Span request = sdk.getTracer("test").spanBuilder("POST /orders").startSpan();
        try (Scope ignored = request.makeCurrent()) {
            traceparent = spans.currentTraceparent();
        } finally {
            request.end();
        }
        assertThat(traceparent).isEqualTo("00-" + request.getSpanContext().getTraceId() + "-"
                + request.getSpanContext().getSpanId() + "-01");

        RefreshTracing.Span refresh = spans.start("order-search", "acme", 3, List.of(traceparent));
        assertThat(Span.current().getSpanContext().getTraceId()).as("current while the projection runs")
                .isNotEqualTo(request.getSpanContext().getTraceId());
        refresh.end("refreshed", null);
        assertThat(Span.current().getSpanContext().isValid()).as("no longer current").isFalse();

        SpanData data = exported.getFinishedSpanItems().stream().filter(s -> s.getName().equals("refresh order-search"))
                .findFirst().orElseThrow();
        assertThat(data.getParentSpanContext().isValid()).isFalse();
        assertThat(data.getLinks()).extracting(LinkData::getSpanContext).extracting(c -> c.getTraceId(), c -> c.getSpanId())
                .containsExactly(org.assertj.core.groups.Tuple.tuple(request.getSpanContext().getTraceId(),
                        request.getSpanContext().getSpanId()));
        assertThat(data.getAttributes().get(RefreshSpans.PROJECTION)).isEqualTo("order-search");
        assertThat(data.getAttributes().get(RefreshSpans.TENANT)).isEqualTo("acme");
        assertThat(data.getAttributes().get(RefreshSpans.KEYS)).isEqualTo(3L);
        assertThat(data.getAttributes().get(RefreshSpans.LINKS)).isEqualTo(1L);
        assertThat(data.getAttributes().get(RefreshSpans.OUTCOME)).isEqualTo("refreshed");
        assertThat(data.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
    }

    @Test
    void aFailedRefreshRecordsItsFailureAndUnreadableOrSurplusTraceContextsAreNotLinked() {
        List<String> parents = new ArrayList<>(List.of("garbage", "00-00000000000000000000000000000000-0000000000000000-01",
                "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-zz"));
        for (int i = 0; i < RefreshTracing.MAX_LINKS + 5; i++) {
            parents.add("00-4bf92f3577b34da6a3ce929d0e0e4736-%016x-01".formatted(i + 1));
        }
        spans.start("customer-stats", "", 140, parents).end("failed", new IllegalStateException("read model locked"));

        SpanData data = exported.getFinishedSpanItems().get(0);
        assertThat(data.getLinks()).hasSize(RefreshTracing.MAX_LINKS);
        assertThat(data.getAttributes().get(RefreshSpans.TENANT)).as("no tenant, no attribute").isNull();
        assertThat(data.getAttributes().get(RefreshSpans.LINKS)).isEqualTo((long) RefreshTracing.MAX_LINKS);
        assertThat(data.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
        assertThat(data.getEvents()).extracting(e -> e.getName()).containsExactly("exception");
    }

    @Test
    void withoutASampledSpanThereIsNoTraceContextAndANonRecordingOpenTelemetryTracesNothing() {
        assertThat(spans.currentTraceparent()).as("no span current").isNull();
        OpenTelemetrySdk neverSampled = OpenTelemetrySdk.builder().setTracerProvider(SdkTracerProvider.builder()
                .setSampler(Sampler.alwaysOff()).build()).build();
        Span unsampled = neverSampled.getTracer("test").spanBuilder("GET /").startSpan();
        try (Scope ignored = unsampled.makeCurrent()) {
            assertThat(spans.currentTraceparent()).isNull();
        }
        assertThat(RefreshSpans.of(OpenTelemetry.noop())).isNull();
    }
}
