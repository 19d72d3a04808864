package dev.projections.endpoints;

import dev.projections.ClockSkew;
import dev.projections.EngineHealth;
import dev.projections.Projections;
import jakarta.inject.Inject;
import jakarta.json.Json;
import jakarta.json.JsonObjectBuilder;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/**
 * {@code GET /projections/health}: 200 with a JSON body (last sweep, oldest due age, paused projections, suspended projections with their reasons,
 * the clock against the database's), 503
 * when the database is unreachable or the last sweep is older than three sweep intervals. Outside the console's
 * login, for load balancers and probes. Mapped by the console WAR's web.xml, or by this jar's web fragment in a
 * WAR of the application ({@code /projections/health}).
 */
public class HealthServlet extends HttpServlet {

    @Inject
    Projections projections;

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        EngineHealth health = projections.health();
        JsonObjectBuilder body = Json.createObjectBuilder()
                .add("status", health.healthy() ? "UP" : "DOWN");
        if (health.problem() != null) {
            body.add("problem", health.problem());
        }
        if (health.lastSweep() != null) {
            body.add("lastSweep", health.lastSweep().toString());
        } else {
            body.addNull("lastSweep");
        }
        if (health.oldestDueAge() != null) {
            body.add("oldestDueAgeSeconds", health.oldestDueAge().toMillis() / 1000.0);
        }
        body.add("pausedProjections", Json.createArrayBuilder(health.pausedProjections()));
        JsonObjectBuilder suspended = Json.createObjectBuilder();
        health.suspendedProjections().forEach(suspended::add);
        body.add("suspendedProjections", suspended);
        addClockSkew(body, health.clockSkew());
        // this instance's role, and the instances that refresh for it (docs/design.md D54; -1 before the first count)
        body.add("processing", health.processing());
        body.add("liveProcessingNodes", health.liveProcessingNodes());
        response.setStatus(health.healthy() ? HttpServletResponse.SC_OK : HttpServletResponse.SC_SERVICE_UNAVAILABLE);
        response.setContentType("application/json");
        response.setCharacterEncoding("UTF-8");
        response.setHeader("Cache-Control", "no-store");
        response.getWriter().write(body.build().toString());
    }

    /**
     * This instance's clock against the database's (docs/contract.md §4, "Time"): {@code clockSkewed} is true beyond the
     * limit, and the status stays UP. The instance serves as well as before (it is leases across instances that
     * suffer), and taking it out of service would not set its clock; the log names the fix.
     */
    private static void addClockSkew(JsonObjectBuilder body, ClockSkew skew) {
        if (skew == null) {
            body.addNull("clockSkewMs");
            body.add("clockSkewed", false);
            return;
        }
        body.add("clockSkewMs", skew.skew().toMillis());
        body.add("clockSkewLimitMs", skew.limit().toMillis());
        body.add("clockSkewed", skew.exceeded());
    }
}
