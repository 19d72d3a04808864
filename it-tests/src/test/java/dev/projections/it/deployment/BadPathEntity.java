package dev.projections.it.deployment;

import dev.projections.Projected;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;

/** An entity whose key path names no attribute: its persistence unit must not start. */
@Entity
@Projected(value = "order-search", id = "nope")
public class BadPathEntity {

    @Id
    Long id;

    String name;
}
