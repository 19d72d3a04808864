package dev.projections.demo.api;

import dev.projections.demo.orders.boundary.ReadModels;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.Map;

/** The read models as they are now: {@code GET /search/orders/{id}}, {@code GET /stats/customers/{name}}. */
@RequestScoped
@Path("/")
@Produces(MediaType.APPLICATION_JSON)
public class ReadModelsResource {

    @Inject
    ReadModels readModels;

    @GET
    @Path("search/orders/{id}")
    public Map<String, Object> orderSearch(@HeaderParam("X-Tenant") @DefaultValue("") String tenant,
                                           @PathParam("id") String id) {
        long orderId = RequestValues.orderId(id);
        // the caller's tenant only: another tenant's order answers as if it did not exist
        Map<String, Object> row = readModels.orderSearch(tenant.trim(), orderId);
        if (row == null) {
            throw new NotFoundJson("no order_search row for order " + orderId + " (yet)");
        }
        return row;
    }

    @GET
    @Path("stats/customers/{name}")
    public Map<String, Object> customerStats(@HeaderParam("X-Tenant") @DefaultValue("") String tenant,
                                             @PathParam("name") String name) {
        Map<String, Object> row = readModels.customerStats(tenant.trim(), name);
        if (row == null) {
            throw new NotFoundJson("no customer_stats row for customer " + name + " (yet)");
        }
        return row;
    }
}
