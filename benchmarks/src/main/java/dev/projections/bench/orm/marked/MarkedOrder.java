package dev.projections.bench.orm.marked;

import dev.projections.Projected;
import dev.projections.bench.orm.OrderColumns;
import jakarta.persistence.CascadeType;
import jakarta.persistence.Entity;
import jakarta.persistence.OneToMany;
import jakarta.persistence.Table;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** An order whose changes mark {@code order-search} by the order's own id (the demo's key path). */
@Entity
@Table(name = "orders")
@Projected("order-search")
public class MarkedOrder extends OrderColumns {

    @OneToMany(mappedBy = "order", cascade = CascadeType.ALL, orphanRemoval = true)
    private List<MarkedOrderLine> lines = new ArrayList<>();

    protected MarkedOrder() {
    }

    public MarkedOrder(String customer, String status, Instant createdAt) {
        super(customer, status, createdAt);
    }

    @Override
    public void addLine(String product, int quantity, BigDecimal price) {
        lines.add(new MarkedOrderLine(this, product, quantity, price));
    }
}
