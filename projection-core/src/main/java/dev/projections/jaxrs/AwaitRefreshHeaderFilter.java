package dev.projections.jaxrs;

import dev.projections.CommitCapture;
import dev.projections.RefreshWait;
import dev.projections.config.Durations;
import dev.projections.freshness.RefreshWaits;
import jakarta.enterprise.inject.spi.CDI;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.time.Duration;

/**
 * Read-your-writes by request header (docs/contract.md §14): a request with {@code X-Await-Refresh: 2s} is answered
 * only once the marks its transactions committed are refreshed, or 2 s passed, and its response says which in
 * {@code X-Projections-Refreshed: true|false}. Without the header nothing changes and nothing is added to any commit.
 * Only the commits of the request's own thread are seen: a resource that commits on another (an asynchronous
 * response, an {@code @Asynchronous} method) has nothing captured, and is answered {@code true} at once.
 * A value that is not a duration ({@code 500ms}, {@code 2s}, {@code 1m}) is answered 400 naming it, before the
 * resource runs; a value above {@code projection.await-max-timeout} is cut to it.
 * <p>
 * The resource must commit before it returns — it calls an EJB or a {@code @Transactional} bean, as usual — for the
 * wait runs in the response filter, after the resource method. An EAR's {@code lib/} is not scanned for providers,
 * so the application registers it with one line in its WAR:
 * <pre>{@code @Provider public class AwaitRefreshHeader extends AwaitRefreshHeaderFilter { }}</pre>
 */
public class AwaitRefreshHeaderFilter implements ContainerRequestFilter, ContainerResponseFilter {

    public static final String REQUEST_HEADER = "X-Await-Refresh";
    public static final String RESPONSE_HEADER = "X-Projections-Refreshed";

    private static final String CAPTURE = AwaitRefreshHeaderFilter.class.getName() + ".capture";
    private static final String TIMEOUT = AwaitRefreshHeaderFilter.class.getName() + ".timeout";

    private volatile RefreshWaits waits;

    @Override
    public void filter(ContainerRequestContext request) {
        String value = request.getHeaderString(REQUEST_HEADER);
        if (value == null) {
            return;
        }
        Duration timeout = Durations.nonNegative(value.strip());
        if (timeout == null) {
            request.abortWith(Response.status(Response.Status.BAD_REQUEST)
                    .type(new MediaType("application", "problem+json"))
                    .entity(problem(REQUEST_HEADER + " must be a duration such as 500ms, 2s or 1m, was \""
                            + printable(value) + "\""))
                    .build());
            return;
        }
        request.setProperty(TIMEOUT, timeout);
        request.setProperty(CAPTURE, waits().captureRequest());
    }

    @Override
    public void filter(ContainerRequestContext request, ContainerResponseContext response) {
        if (!(request.getProperty(CAPTURE) instanceof CommitCapture capture)) {
            return;
        }
        request.removeProperty(CAPTURE);
        try {
            RefreshWait wait = capture.await((Duration) request.getProperty(TIMEOUT));
            response.getHeaders().putSingle(RESPONSE_HEADER, Boolean.toString(wait.refreshed()));
        } finally {
            capture.close();
        }
    }

    /** The engine's waits, as its EE layer produces them for the application's modules. */
    private RefreshWaits waits() {
        RefreshWaits found = waits;
        if (found == null) {
            found = CDI.current().select(RefreshWaits.class).get();
            waits = found;
        }
        return found;
    }

    private static String problem(String detail) {
        return "{\"type\":\"about:blank\",\"title\":\"Bad Request\",\"status\":400,\"detail\":\""
                + detail.replace("\\", "\\\\").replace("\"", "\\\"") + "\"}";
    }

    /** At most 60 characters of the value, control characters shown as '?'. */
    private static String printable(String value) {
        String cut = value.length() > 60 ? value.substring(0, 60) + "…" : value;
        return cut.codePoints().map(c -> Character.isISOControl(c) ? '?' : c)
                .collect(StringBuilder::new, StringBuilder::appendCodePoint, StringBuilder::append).toString();
    }
}
