package dev.projections.eclipselink;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** An entity no projection declares: its own changes mark nothing, but it is the key of customer-stats. */
@Entity
@Table(name = "marked_customer")
public class MarkedCustomer {

    @Id
    private Long id;

    private String name;

    protected MarkedCustomer() {
    }

    public MarkedCustomer(long id, String name) {
        this.id = id;
        this.name = name;
    }

    public void name(String name) {
        this.name = name;
    }
}
