package dev.projections.endpoints;

import dev.projections.metrics.MetricsText;
import jakarta.inject.Inject;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Optional;

/**
 * {@code GET /projections/metrics}: the Prometheus text format of the engine's meters, outside the console's
 * login by default (docs/guide/operations.md: how to protect it). When the application supplies its own {@code MeterRegistry},
 * the meters go there and this endpoint says so in a comment line. Mapped by the console WAR's web.xml, or by this
 * jar's web fragment in a WAR of the application ({@code /projections/metrics}).
 */
public class MetricsServlet extends HttpServlet {

    @Inject
    MetricsText metrics;

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        Optional<String> text = metrics.prometheus();
        response.setCharacterEncoding("UTF-8");
        if (text.isEmpty()) {
            // still 200 and valid exposition text, so a scraper pointed here does not mark the target down
            response.setContentType("text/plain; version=0.0.4");
            response.getWriter().write("# the projection meters go to " + metrics.registryDescription() + "\n");
            return;
        }
        response.setContentType("text/plain; version=0.0.4");
        response.getWriter().write(text.get());
    }
}
