package dev.projections.health.microprofile;

import dev.projections.EngineHealth;
import dev.projections.spi.RunningEngines;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/**
 * The readiness check "projections" (docs/contract.md §12): UP when the engine has started and is healthy, DOWN
 * before it has started (its schema not yet checked), after it stopped, and whenever {@code /projections/health}
 * would answer 503 (database unreachable, no sweep for three sweep intervals). Suspended and paused projections, and a
 * clock too far from the database's ({@code clockSkewed}), are reported as data and keep it UP: they are an operator's
 * matter, not a reason to take the instance out of a load balancer.
 */
@Readiness
@ApplicationScoped
public class ProjectionsReadiness implements HealthCheck {

    static final String NAME = "projections";

    @Override
    public HealthCheckResponse call() {
        return responseFor(RunningEngines.health());
    }

    /* built directly, not through HealthCheckResponse.named(): no provider lookup on a path the server polls */
    static HealthCheckResponse responseFor(List<EngineHealth> engines) {
        Map<String, Object> data = new LinkedHashMap<>();
        if (engines.isEmpty()) {
            data.put("problem", "the projection engine has not started");
            return new HealthCheckResponse(NAME, HealthCheckResponse.Status.DOWN, Optional.of(data));
        }
        boolean up = true;
        for (EngineHealth health : engines) {
            up &= health.healthy();
            if (health.problem() != null) {
                data.put("problem", health.problem());
            }
            if (health.lastSweep() != null) {
                data.put("lastSweep", health.lastSweep().toString());
            }
            if (health.oldestDueAge() != null) {
                data.put("oldestDueAgeSeconds", health.oldestDueAge().toSeconds());
            }
            data.put("pausedProjections", String.join(",", new TreeSet<>(health.pausedProjections())));
            data.put("suspendedProjections", String.join(",", new TreeSet<>(health.suspendedProjections().keySet())));
            data.put("processing", health.processing());
            data.put("liveProcessingNodes", (long) health.liveProcessingNodes()); // MicroProfile Health data: long, not int
            if (health.clockSkew() != null) {
                data.put("clockSkewMs", health.clockSkew().skew().toMillis());
                data.put("clockSkewLimitMs", health.clockSkew().limit().toMillis());
                data.put("clockSkewed", health.clockSkew().exceeded());
            }
        }
        return new HealthCheckResponse(NAME, up ? HealthCheckResponse.Status.UP : HealthCheckResponse.Status.DOWN,
                Optional.of(data));
    }
}
