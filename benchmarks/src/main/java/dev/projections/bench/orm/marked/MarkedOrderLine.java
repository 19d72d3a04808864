package dev.projections.bench.orm.marked;

import dev.projections.Projected;
import dev.projections.bench.orm.LineColumns;
import jakarta.persistence.Entity;
import jakarta.persistence.FetchType;
import jakarta.persistence.JoinColumn;
import jakarta.persistence.ManyToOne;
import jakarta.persistence.Table;
import java.math.BigDecimal;

/** A line marks its order's {@code order-search} row through the association (the demo's key path "order"). */
@Entity
@Table(name = "order_lines")
@Projected(value = "order-search", id = "order")
public class MarkedOrderLine extends LineColumns {

    @ManyToOne(fetch = FetchType.LAZY, optional = false)
    @JoinColumn(name = "order_id")
    private MarkedOrder order;

    protected MarkedOrderLine() {
    }

    MarkedOrderLine(MarkedOrder order, String product, int quantity, BigDecimal price) {
        super(product, quantity, price);
        this.order = order;
    }
}
