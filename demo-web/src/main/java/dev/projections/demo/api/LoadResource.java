package dev.projections.demo.api;

import dev.projections.demo.orders.boundary.OrderService;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import java.util.Map;

/** {@code POST /load?orders=N&updates=M}: N new orders and M random status changes. */
@RequestScoped
@Path("/load")
@Produces(MediaType.APPLICATION_JSON)
public class LoadResource {

    @Inject
    OrderService orders;

    @POST
    public Map<String, Integer> load(@HeaderParam("X-Tenant") @DefaultValue("") String tenant,
                                     @QueryParam("orders") String newOrders,
                                     @QueryParam("updates") String updates) {
        int[] done = orders.load(tenant.trim(), (int) RequestValues.whole("orders", newOrders, 0, 0, 100_000),
                (int) RequestValues.whole("updates", updates, 0, 0, 100_000));
        return Map.of("orders", done[0], "updates", done[1]);
    }
}
