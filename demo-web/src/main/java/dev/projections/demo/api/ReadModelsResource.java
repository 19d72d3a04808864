package dev.projections.demo.api;

import dev.projections.demo.orders.boundary.ReadModels;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.NotFoundException;
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
    public Map<String, Object> orderSearch(@PathParam("id") long id) {
        Map<String, Object> row = readModels.orderSearch(id);
        if (row == null) {
            throw new NotFoundException("no order_search row for order " + id + " (yet)");
        }
        return row;
    }

    @GET
    @Path("stats/customers/{name}")
    public Map<String, Object> customerStats(@HeaderParam("X-Tenant") @DefaultValue("") String tenant,
                                             @PathParam("name") String name) {
        Map<String, Object> row = readModels.customerStats(tenant, name);
        if (row == null) {
            throw new NotFoundException("no customer_stats row for customer " + name + " (yet)");
        }
        return row;
    }
}
