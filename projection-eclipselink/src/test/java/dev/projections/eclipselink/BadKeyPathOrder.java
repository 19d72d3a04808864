package dev.projections.eclipselink;

import dev.projections.Projected;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** A key path that names no attribute: its persistence unit must fail to start, naming entity and path. */
@Entity
@Table(name = "bad_key_path_order")
@Projected(value = "order-search", id = "customerr")
public class BadKeyPathOrder {

    @Id
    private Long id;

    private String customer;
}
