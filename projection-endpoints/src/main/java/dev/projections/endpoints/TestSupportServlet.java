package dev.projections.endpoints;

import dev.projections.IdleWait;
import dev.projections.Projections;
import dev.projections.config.Durations;
import dev.projections.freshness.TestSupportSwitch;
import jakarta.inject.Inject;
import jakarta.json.Json;
import jakarta.json.JsonObjectBuilder;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;

/**
 * Test support over HTTP (docs/contract.md §14), for an application's client-side tests, only with
 * {@code projection.test-support=true} (404 otherwise), outside the login like {@code /projections/health}:
 * <ul>
 * <li>{@code POST /projections/test/idle?projection=a&projection=b&timeout=10s}: {@link Projections#awaitIdle}; every
 * deployed projection when none is named; 200 with {@code {"idle":true|false,"waitedMs":…,"pending":{…},"failing":{…},
 * "parked":{…}}};</li>
 * <li>{@code POST /projections/test/refresh?projection=…}: {@link Projections#refreshNow}; 200 with
 * {@code {"madeDue":n}}.</li>
 * </ul>
 * A bad projection name or timeout is answered 400 naming it.
 */
public class TestSupportServlet extends HttpServlet {

    @Inject
    Projections projections;

    @Inject
    TestSupportSwitch testSupport;

    @Override
    protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
        if (!testSupport.testSupportEnabled()) {
            response.sendError(HttpServletResponse.SC_NOT_FOUND);
            return;
        }
        String[] named = request.getParameterValues("projection");
        String[] names = named == null ? new String[0] : named;
        JsonObjectBuilder body = Json.createObjectBuilder();
        try {
            String path = request.getPathInfo() == null ? "" : request.getPathInfo();
            switch (path) {
                case "/idle" -> {
                    IdleWait wait = projections.awaitIdle(timeout(request.getParameter("timeout")), names);
                    body.add("idle", wait.idle()).add("waitedMs", wait.waited().toMillis())
                            .add("pending", counts(wait.pending())).add("failing", counts(wait.failing()))
                            .add("parked", counts(wait.parked()));
                }
                case "/refresh" -> body.add("madeDue", projections.refreshNow(names));
                default -> {
                    response.sendError(HttpServletResponse.SC_NOT_FOUND);
                    return;
                }
            }
        } catch (IllegalArgumentException | IllegalStateException bad) {
            response.setStatus(HttpServletResponse.SC_BAD_REQUEST);
            body = Json.createObjectBuilder().add("error", bad.getMessage());
        }
        response.setContentType("application/json");
        response.setCharacterEncoding("UTF-8");
        response.setHeader("Cache-Control", "no-store");
        response.getWriter().write(body.build().toString());
    }

    /** {@code timeout}, 30 s when absent. */
    private static Duration timeout(String value) {
        if (value == null || value.isBlank()) {
            return Duration.ofSeconds(30);
        }
        Duration timeout = Durations.nonNegative(value);
        if (timeout != null) {
            return timeout;
        }
        throw new IllegalArgumentException("timeout must be a duration such as 500ms, 10s or 1m, was \""
                + (value.length() > 60 ? value.substring(0, 60) + "…" : value) + "\"");
    }

    private static JsonObjectBuilder counts(Map<String, Long> counts) {
        JsonObjectBuilder object = Json.createObjectBuilder();
        counts.forEach(object::add);
        return object;
    }
}
