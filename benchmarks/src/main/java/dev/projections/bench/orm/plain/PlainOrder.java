package dev.projections.bench.orm.plain;

import dev.projections.bench.orm.OrderColumns;
import jakarta.persistence.CascadeType;
import jakarta.persistence.Entity;
import jakarta.persistence.OneToMany;
import jakarta.persistence.Table;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** The same order without {@code @Projected}: the unmarked baseline. */
@Entity
@Table(name = "orders")
public class PlainOrder extends OrderColumns {

    @OneToMany(mappedBy = "order", cascade = CascadeType.ALL, orphanRemoval = true)
    private List<PlainOrderLine> lines = new ArrayList<>();

    protected PlainOrder() {
    }

    public PlainOrder(String customer, String status, Instant createdAt) {
        super(customer, status, createdAt);
    }

    @Override
    public void addLine(String product, int quantity, BigDecimal price) {
        lines.add(new PlainOrderLine(this, product, quantity, price));
    }
}
