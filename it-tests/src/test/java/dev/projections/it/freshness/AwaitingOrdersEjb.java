package dev.projections.it.freshness;

import dev.projections.AwaitRefresh;
import dev.projections.demo.orders.boundary.OrderService;
import jakarta.ejb.Stateless;
import jakarta.inject.Inject;
import java.math.BigDecimal;
import java.util.List;

/** An EJB annotated on its own method: its container transaction is open when the interceptor's call returns. */
@Stateless
public class AwaitingOrdersEjb {

    @Inject
    OrderService orders;

    @AwaitRefresh("20s")
    public long create(String customer) {
        return orders.createOrder("", customer, List.of(new OrderService.NewLine("a", 1, BigDecimal.TEN)));
    }
}
