package dev.projections.it.singlewar;

import dev.projections.Projected;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** An entity of a single-WAR application, in WEB-INF/classes beside the library in WEB-INF/lib. */
@Entity
@Table(name = "single_war_gadget")
@Projected(GadgetNames.NAME)
public class Gadget {

    @Id
    private Long id;

    private String name;

    protected Gadget() {
    }

    public Gadget(long id, String name) {
        this.id = id;
        this.name = name;
    }

    public void rename(String name) {
        this.name = name;
    }

    public String getName() {
        return name;
    }
}
