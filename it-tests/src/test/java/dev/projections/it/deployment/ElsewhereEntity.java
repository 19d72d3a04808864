package dev.projections.it.deployment;

import dev.projections.Projected;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;

/** A projected entity of a persistence unit on another database than the engine's: that must not deploy. */
@Entity
@Projected("order-search")
public class ElsewhereEntity {

    @Id
    Long id;
}
