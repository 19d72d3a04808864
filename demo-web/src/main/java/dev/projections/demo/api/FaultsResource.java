package dev.projections.demo.api;

import dev.projections.Projections;
import dev.projections.demo.orders.control.ProjectionFaults;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import java.time.Duration;
import java.util.Map;

/**
 * {@code POST /faults/{projection}?failNext=N&message=…[&nonRetryable=true]}: the projection's next N refreshes
 * throw (non-retryable ones park their marks at once); {@code ?failAll=true|false}: every refresh fails, or no
 * longer does; {@code ?delay=200ms}: each refresh of the projection takes that much longer per key, as a slow backend
 * would ({@code delay=0} lifts it; at most 500 ms, which a batch of 100 keys adds up to 50 s).
 */
@RequestScoped
@Path("/faults/{projection}")
@Produces(MediaType.APPLICATION_JSON)
public class FaultsResource {

    @Inject
    ProjectionFaults faults;

    @Inject
    Projections projections;

    @POST
    public Map<String, Object> failNext(@PathParam("projection") String projection,
                                        @QueryParam("failNext") String failNextValue,
                                        @QueryParam("message") @DefaultValue("fault injected by the demo") String message,
                                        @QueryParam("nonRetryable") String nonRetryableValue,
                                        @QueryParam("failAll") String failAllValue,
                                        @QueryParam("delay") String delayValue) {
        if (!projections.names().contains(projection)) {
            throw new BadRequestJson("unknown projection \"" + projection + "\"; known: " + projections.names());
        }
        if (delayValue != null) {
            // per key: a batch of 100 at 500 ms takes 50 s, inside its refresh timeout (half the 2-minute lease)
            Duration delay = RequestValues.duration("delay", delayValue, Duration.ofMillis(500));
            faults.delay(projection, delay);
            return Map.of("projection", projection, "delay",
                    delay.isZero() ? "0" : dev.projections.config.Durations.format(delay));
        }
        if (failAllValue != null) {
            boolean failAll = RequestValues.bool("failAll", failAllValue);
            faults.failAll(projection, failAll, message);
            return Map.of("projection", projection, "failAll", failAll, "message", message);
        }
        int failNext = (int) RequestValues.whole("failNext", failNextValue, 1, 0, 1_000_000);
        boolean nonRetryable = nonRetryableValue != null && RequestValues.bool("nonRetryable", nonRetryableValue);
        faults.failNext(projection, failNext, message, nonRetryable);
        return Map.of("projection", projection, "failNext", failNext, "message", message, "nonRetryable", nonRetryable);
    }
}
