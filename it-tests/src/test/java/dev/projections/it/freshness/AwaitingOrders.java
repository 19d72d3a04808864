package dev.projections.it.freshness;

import dev.projections.AwaitRefresh;
import dev.projections.demo.orders.boundary.OrderService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import java.math.BigDecimal;
import java.util.List;

/** A bean of the application's WAR whose methods wait for the refresh of what they commit. */
@ApplicationScoped
public class AwaitingOrders {

    @Inject
    OrderService orders;

    /** The order is committed by the EJB it calls, before this returns. */
    @AwaitRefresh("20s")
    public long create(String customer) {
        return orders.createOrder("", customer, List.of(new OrderService.NewLine("a", 1, BigDecimal.TEN)));
    }

    /** Two orders in this method's own transaction, committed by {@code @Transactional}'s interceptor. */
    @AwaitRefresh("20s")
    @Transactional
    public void createTwo(String customer) {
        create(customer);
        orders.createOrder("", customer, List.of(new OrderService.NewLine("b", 1, BigDecimal.ONE)));
    }
}
