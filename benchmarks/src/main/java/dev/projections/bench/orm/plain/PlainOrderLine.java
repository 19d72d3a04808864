package dev.projections.bench.orm.plain;

import dev.projections.bench.orm.LineColumns;
import jakarta.persistence.Entity;
import jakarta.persistence.FetchType;
import jakarta.persistence.JoinColumn;
import jakarta.persistence.ManyToOne;
import jakarta.persistence.Table;
import java.math.BigDecimal;

/** The same line without {@code @Projected}: the unmarked baseline. */
@Entity
@Table(name = "order_lines")
public class PlainOrderLine extends LineColumns {

    @ManyToOne(fetch = FetchType.LAZY, optional = false)
    @JoinColumn(name = "order_id")
    private PlainOrder order;

    protected PlainOrderLine() {
    }

    PlainOrderLine(PlainOrder order, String product, int quantity, BigDecimal price) {
        super(product, quantity, price);
        this.order = order;
    }
}
