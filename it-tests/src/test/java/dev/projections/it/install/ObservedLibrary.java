package dev.projections.it.install;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.it.support.Await;
import dev.projections.it.support.OtlpReceiver;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;

/**
 * What the optional observability of an installation shows of src/it/library-app, however the server was
 * configured (by the CLI scripts in {@link StockWildFlyIT}, by the Galleon layers in {@link GalleonWildFlyIT}): a
 * refresh span linked to the request that changed the book, and the engine in MicroProfile Health's readiness.
 */
final class ObservedLibrary {

    private final StockServer server;
    private final ServerHttp web;

    ObservedLibrary(StockServer server, ServerHttp web) {
        this.server = server;
        this.web = web;
    }

    /** A POST in a caller's trace: the refresh of its book is a span of its own, linked to the POST's server span. */
    void refreshIsASpanLinkedToTheRequest(OtlpReceiver collector) {
        HexFormat hex = HexFormat.of();
        Random random = new Random();
        byte[] trace = new byte[16];
        byte[] caller = new byte[8];
        random.nextBytes(trace);
        random.nextBytes(caller);
        String traceId = hex.formatHex(trace);
        // the caller's trace: the server's span of the POST is its child, the mark keeps that span's context
        HttpResponse<String> created = web.send(HttpRequest.newBuilder(URI.create(server.url("/library/api/books")))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .header("traceparent", "00-" + traceId + "-" + hex.formatHex(caller) + "-01")
                .POST(HttpRequest.BodyPublishers.ofString("title=Persuasion&author=Jane+Austen")).build(),
                "POST /library/api/books with a traceparent");
        assertThat(created.statusCode()).as(created.body()).isBetween(200, 299);

        Await.until("the refresh's span, linked to the POST's trace, at the collector", Duration.ofSeconds(60),
                () -> refreshSpanLinkedTo(collector, traceId) != null);
        OtlpReceiver.Span refresh = refreshSpanLinkedTo(collector, traceId);
        assertThat(refresh.name()).isEqualTo("refresh book-titles");
        assertThat(refresh.traceId()).as("a trace of its own, linked, not a child").isNotEqualTo(traceId);
        assertThat(refresh.attributes()).containsEntry("projection.name", "book-titles")
                .containsEntry("projection.outcome", "refreshed").containsEntry("projection.linked_transactions", "1")
                .containsKey("projection.keys").doesNotContainKey("projection.tenant"); // the library has no tenants
        Await.until("the POST's server span at the collector", Duration.ofSeconds(30), () -> collector.spans().stream()
                .anyMatch(span -> span.traceId().equals(traceId)));
        List<String> postSpans = collector.spans().stream().filter(span -> span.traceId().equals(traceId))
                .map(OtlpReceiver.Span::spanId).toList();
        assertThat(refresh.linkSpanIds()).as("the link is to the server's span of that POST").containsAnyElementsOf(postSpans);
    }

    private static OtlpReceiver.Span refreshSpanLinkedTo(OtlpReceiver collector, String traceId) {
        return collector.spans().stream().filter(span -> span.linkTraceIds().contains(traceId)).findFirst().orElse(null);
    }

    /** The readiness check {@code projections} on the management interface's {@code /health/ready}, UP once swept. */
    void readinessReportsTheEngine() {
        // the first sweep runs a second after start-up
        Await.until("a sweep in the readiness data", () -> readiness().body().contains("lastSweep"));
        HttpResponse<String> ready = readiness();
        assertThat(ready.statusCode()).as(ready.body()).isEqualTo(200);
        assertThat(ready.body().replace(" ", "")).contains("\"name\":\"projections\"").contains("\"status\":\"UP\"");
    }

    private HttpResponse<String> readiness() {
        return web.send(HttpRequest.newBuilder(URI.create(server.managementUrl("/health/ready"))).build(),
                "/health/ready");
    }
}
