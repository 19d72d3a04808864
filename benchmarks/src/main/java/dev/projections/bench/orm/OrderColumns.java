package dev.projections.bench.orm;

import jakarta.persistence.Column;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.MappedSuperclass;
import jakarta.persistence.SequenceGenerator;
import jakarta.persistence.Version;
import java.math.BigDecimal;
import java.time.Instant;

/**
 * The columns of {@code orders}, shared by the marked and the plain entity so the two persistence units differ in
 * nothing but {@code @Projected}. Ids come from a sequence, 50 at a time, as in the demo.
 */
@MappedSuperclass
public abstract class OrderColumns {

    @Id
    @GeneratedValue(strategy = GenerationType.SEQUENCE, generator = "orders_seq")
    @SequenceGenerator(name = "orders_seq", sequenceName = "orders_seq", allocationSize = 50)
    private Long id;

    @Column(nullable = false)
    private String customer;

    @Column(nullable = false)
    private String status;

    @Column(name = "created_at", nullable = false)
    private Instant createdAt;

    @Version
    private long version;

    protected OrderColumns() {
    }

    protected OrderColumns(String customer, String status, Instant createdAt) {
        this.customer = customer;
        this.status = status;
        this.createdAt = createdAt;
    }

    public Long getId() {
        return id;
    }

    public abstract void addLine(String product, int quantity, BigDecimal price);
}
