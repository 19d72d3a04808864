package dev.projections.eclipselink;

import dev.projections.Projected;
import jakarta.persistence.CollectionTable;
import jakarta.persistence.ElementCollection;
import jakarta.persistence.Entity;
import jakarta.persistence.FetchType;
import jakarta.persistence.Id;
import jakarta.persistence.JoinColumn;
import jakarta.persistence.ManyToOne;
import jakarta.persistence.Table;
import java.util.ArrayList;
import java.util.List;

/** The marking contract's aggregate: its own key, an association's and a basic attribute's, and an owned collection. */
@Entity
@Table(name = "marked_order")
@Projected("order-search")
@Projected(value = "customer-stats", id = "customer")
@Projected(value = "region-stats", id = "region")
public class MarkedOrder {

    @Id
    private Long id;

    private String region;

    private int total;

    @ManyToOne(fetch = FetchType.LAZY)
    @JoinColumn(name = "customer_id")
    private MarkedCustomer customer;

    @ElementCollection
    @CollectionTable(name = "marked_order_tag", joinColumns = @JoinColumn(name = "order_id"))
    private List<String> tags = new ArrayList<>();

    protected MarkedOrder() {
    }

    public MarkedOrder(long id, String region, MarkedCustomer customer) {
        this.id = id;
        this.region = region;
        this.customer = customer;
    }

    public void region(String region) {
        this.region = region;
    }

    public void total(int total) {
        this.total = total;
    }

    public void customer(MarkedCustomer customer) {
        this.customer = customer;
    }

    public List<String> tags() {
        return tags;
    }
}
