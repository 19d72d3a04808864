package dev.projections.demo.api;

import dev.projections.demo.orders.boundary.OrderService;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;

/** Orders of the caller's tenant (header {@code X-Tenant}, none by default). */
@RequestScoped
@Path("/orders")
@Consumes(MediaType.APPLICATION_JSON)
@Produces(MediaType.APPLICATION_JSON)
public class OrdersResource {

    /** Quantity as a decimal: JSON-B would wrap 4294967297 into an int as 1; {@link RequestValues} refuses it. */
    public record LineJson(String sku, BigDecimal quantity, BigDecimal price) {
        OrderService.NewLine toLine() {
            return new OrderService.NewLine(sku, RequestValues.quantity(quantity), RequestValues.price(price));
        }
    }

    public record NewOrderJson(String customer, List<LineJson> lines) {
    }

    public record StatusJson(String status) {
    }

    public record CustomerJson(String customer) {
    }

    @Inject
    OrderService orders;

    @POST
    public Response create(@HeaderParam("X-Tenant") @DefaultValue("") String tenant, NewOrderJson body) {
        if (body == null) {
            throw new BadRequestJson("a JSON body {\"customer\":…,\"lines\":[…]} is required");
        }
        List<OrderService.NewLine> lines = body.lines() == null ? List.of()
                : body.lines().stream().map(line -> {
                    if (line == null) {
                        throw new BadRequestJson("a line must not be null");
                    }
                    return line.toLine();
                }).toList();
        long id = orders.createOrder(tenant, body.customer(), lines);
        return Response.status(Response.Status.CREATED).entity(Map.of("id", id)).build();
    }

    @PUT
    @Path("/{id}/status")
    public Map<String, Object> status(@HeaderParam("X-Tenant") @DefaultValue("") String tenant,
                                      @PathParam("id") String id, StatusJson body) {
        long orderId = RequestValues.orderId(id);
        if (body == null) {
            throw new BadRequestJson("a JSON body {\"status\":…} is required");
        }
        orders.changeStatus(tenant, orderId, body.status());
        return Map.of("id", orderId, "status", body.status());
    }

    @POST
    @Path("/{id}/lines")
    public Response addLine(@HeaderParam("X-Tenant") @DefaultValue("") String tenant,
                            @PathParam("id") String id, LineJson body) {
        long orderId = RequestValues.orderId(id);
        if (body == null) {
            throw new BadRequestJson("a JSON body {\"sku\":…,\"quantity\":…,\"price\":…} is required");
        }
        long lineId = orders.addLine(tenant, orderId, body.toLine());
        return Response.status(Response.Status.CREATED).entity(Map.of("id", lineId, "order", orderId)).build();
    }

    @PUT
    @Path("/{id}/customer")
    public Map<String, Object> customer(@HeaderParam("X-Tenant") @DefaultValue("") String tenant,
                                        @PathParam("id") String id, CustomerJson body) {
        long orderId = RequestValues.orderId(id);
        if (body == null) {
            throw new BadRequestJson("a JSON body {\"customer\":…} is required");
        }
        orders.changeCustomer(tenant, orderId, body.customer());
        return Map.of("id", orderId, "customer", body.customer());
    }

    @DELETE
    @Path("/{id}")
    public Response delete(@HeaderParam("X-Tenant") @DefaultValue("") String tenant, @PathParam("id") String id) {
        orders.deleteOrder(tenant, RequestValues.orderId(id));
        return Response.noContent().build();
    }
}
