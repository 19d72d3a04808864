package dev.projections.tracing.opentelemetry;

import dev.projections.spi.RefreshTracing;
import io.opentelemetry.api.OpenTelemetry;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.util.List;
import java.util.logging.Logger;

/**
 * The engine's tracing where the server runs OpenTelemetry (docs/contract.md §9, tracing): the {@link OpenTelemetry}
 * the server gives the application (WildFly's opentelemetry subsystem with MicroProfile Telemetry, where
 * {@code otel.sdk.disabled=false} turns it on). With none, or one that does not record (the SDK disabled), refreshes
 * are not traced and no trace context is written or read.
 */
@ApplicationScoped
public class OpenTelemetryRefreshTracing implements RefreshTracing {

    private static final Logger LOG = Logger.getLogger(OpenTelemetryRefreshTracing.class.getName());

    @Inject
    Instance<OpenTelemetry> openTelemetry;

    private RefreshTracing tracing = RefreshTracing.NONE;

    @PostConstruct
    void find() {
        if (!openTelemetry.isResolvable()) {
            LOG.info("projection-opentelemetry is deployed but the server gives no OpenTelemetry: refreshes are not traced");
            return;
        }
        RefreshSpans spans = RefreshSpans.of(openTelemetry.get());
        if (spans == null) {
            LOG.info("OpenTelemetry does not record spans here (otel.sdk.disabled?): refreshes are not traced");
            return;
        }
        tracing = spans;
        LOG.info("refreshes are traced with OpenTelemetry, linked to the transactions that marked them");
    }

    @Override
    public boolean enabled() {
        return tracing.enabled();
    }

    @Override
    public String currentTraceparent() {
        return tracing.currentTraceparent();
    }

    @Override
    public Span start(String projection, String tenant, int keys, List<String> traceparents) {
        return tracing.start(projection, tenant, keys, traceparents);
    }
}
