package dev.projections.demo.orders.boundary;

import dev.projections.Projections;
import dev.projections.demo.orders.control.CustomerStatsProjection;
import dev.projections.demo.orders.control.OrderSearchProjection;
import dev.projections.demo.orders.entity.Customer;
import dev.projections.demo.orders.entity.Order;
import dev.projections.demo.orders.entity.OrderLine;
import jakarta.ejb.Stateless;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.math.BigDecimal;
import java.util.List;
import java.util.Random;

/**
 * The demo's write side. Order changes are marked automatically through {@code @Projected}; a line change
 * reaches customer-stats two hops away (line → order → customer), so it is marked here with
 * {@link Projections#markDirty} — the documented pattern for such changes.
 */
@Stateless
public class OrderService {

    public record NewLine(String sku, int quantity, BigDecimal price) {
        BigDecimal amount() {
            return price.multiply(BigDecimal.valueOf(quantity));
        }
    }

    /**
     * The largest total of one order, the sum of quantity × price over its lines. The read models are sized from
     * it ({@code order_search.total} DECIMAL(19,2), a customer's sum DECIMAL(38,2)): a value the write side accepts
     * must be one every read model can hold, or each refresh of it would fail for good.
     */
    public static final BigDecimal MAX_ORDER_TOTAL = new BigDecimal("99999999999999999.99");

    @PersistenceContext(unitName = "demo")
    EntityManager em;

    @Inject
    Projections projections;

    /**
     * The server benchmark's synchronous bound (docs/BENCHMARKS.md): with the system property
     * {@code demo.synchronous-refresh=true}, on a server whose engine is off, a new order's read models are refreshed by
     * the business transaction itself — the same statements, no engine — as an application without this library would.
     * Never set outside that benchmark.
     */
    private static final boolean SYNCHRONOUS_REFRESH = Boolean.getBoolean("demo.synchronous-refresh");

    @Inject
    OrderSearchProjection orderSearch;

    @Inject
    CustomerStatsProjection customerStats;

    public long createOrder(String tenant, String customerName, List<NewLine> lines) {
        requireName(customerName);
        lines.forEach(OrderService::requireValid);
        requireTotalWithin(lines.stream().map(NewLine::amount).reduce(BigDecimal.ZERO, BigDecimal::add));
        Order order = new Order(tenant, customerNamed(tenant, customerName), "NEW");
        for (NewLine line : lines) {
            order.addLine(line.sku(), line.quantity(), line.price());
        }
        em.persist(order);
        if (SYNCHRONOUS_REFRESH) {
            em.flush();
            orderSearch.refresh(String.valueOf(order.getId()));
            customerStats.refresh(String.valueOf(order.getCustomer().getId()));
        }
        return order.getId();
    }

    public void changeStatus(String tenant, long orderId, String status) {
        if (status == null || status.isBlank() || status.length() > 40) {
            throw new DemoRequestException("status must be 1..40 characters, was " + status);
        }
        order(tenant, orderId).setStatus(status);
    }

    public long addLine(String tenant, long orderId, NewLine line) {
        requireValid(line);
        Order order = order(tenant, orderId);
        requireTotalWithin(order.getLines().stream().map(l -> l.getPrice().multiply(BigDecimal.valueOf(l.getQuantity())))
                .reduce(line.amount(), BigDecimal::add));
        OrderLine added = order.addLine(line.sku(), line.quantity(), line.price());
        em.persist(added);
        projections.markDirty(CustomerStatsProjection.NAME, String.valueOf(order.getCustomer().getId()));
        return added.getId();
    }

    public void changeCustomer(String tenant, long orderId, String customerName) {
        requireName(customerName);
        order(tenant, orderId).setCustomer(customerNamed(tenant, customerName));
    }

    public void deleteOrder(String tenant, long orderId) {
        em.remove(order(tenant, orderId));
    }

    /** {@code orders} new orders and {@code updates} random status changes, in this one transaction. */
    public int[] load(String tenant, int orders, int updates) {
        if (orders < 0 || updates < 0 || orders > 100_000 || updates > 100_000) {
            throw new DemoRequestException("orders and updates must be 0..100000, were " + orders + ", " + updates);
        }
        Random random = new Random();
        for (int i = 0; i < orders; i++) {
            Order order = new Order(tenant, customerNamed(tenant, "customer-" + random.nextInt(50)), "NEW");
            order.addLine("sku-" + random.nextInt(100), 1 + random.nextInt(5), BigDecimal.valueOf(1 + random.nextInt(10_000), 2));
            em.persist(order);
        }
        List<Order> existing = updates == 0 ? List.of() : em.createQuery(
                "SELECT o FROM CustomerOrder o WHERE o.tenantId = :tenant ORDER BY o.id DESC", Order.class)
                .setParameter("tenant", tenant).setMaxResults(1000).getResultList();
        int updated = 0;
        for (int i = 0; i < updates && !existing.isEmpty(); i++) {
            existing.get(random.nextInt(existing.size())).setStatus(random.nextBoolean() ? "PAID" : "SHIPPED");
            updated++;
        }
        return new int[] {orders, updated};
    }

    private Order order(String tenant, long orderId) {
        Order order = em.find(Order.class, orderId);
        if (order == null || !order.getTenantId().equals(tenant)) {
            throw new UnknownOrderException(orderId);
        }
        return order;
    }

    private Customer customerNamed(String tenant, String name) {
        List<Customer> found = em.createQuery(
                "SELECT c FROM Customer c WHERE c.tenantId = :tenant AND c.name = :name", Customer.class)
                .setParameter("tenant", tenant).setParameter("name", name).getResultList();
        if (!found.isEmpty()) {
            return found.get(0);
        }
        Customer customer = new Customer(tenant, name);
        em.persist(customer);
        return customer;
    }

    private static void requireName(String name) {
        if (name == null || name.isBlank() || name.length() > 200) {
            throw new DemoRequestException("customer must be a name of 1..200 characters, was " + name);
        }
    }

    private static void requireTotalWithin(BigDecimal total) {
        if (total.compareTo(MAX_ORDER_TOTAL) > 0) {
            throw new DemoRequestException("total of the order's lines must not exceed "
                    + MAX_ORDER_TOTAL.toPlainString() + ", would be " + total.toPlainString());
        }
    }

    private static void requireValid(NewLine line) {
        if (line == null || line.sku() == null || line.sku().isBlank() || line.sku().length() > 100) {
            throw new DemoRequestException("a line needs a sku of 1..100 characters");
        }
        if (line.quantity() < 0) {
            throw new DemoRequestException("quantity must not be negative, was " + line.quantity());
        }
        if (line.price() == null || line.price().signum() < 0) {
            throw new DemoRequestException("price must be given and not negative, was " + line.price());
        }
    }
}
