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
import java.util.Map;

/** {@code POST /faults/{projection}?failNext=N&message=…}: the projection's next N refreshes throw. */
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
                                        @QueryParam("message") @DefaultValue("fault injected by the demo") String message) {
        if (!projections.names().contains(projection)) {
            throw new BadRequestJson("unknown projection \"" + projection + "\"; known: " + projections.names());
        }
        int failNext = (int) RequestValues.whole("failNext", failNextValue, 1, 0, 1_000_000);
        faults.failNext(projection, failNext, message);
        return Map.of("projection", projection, "failNext", failNext, "message", message);
    }
}
