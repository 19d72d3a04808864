package dev.projections.it.singlewar;

import dev.projections.Projection;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;

/** A projection in the same WAR as the engine: upper-cased names in single_war_gadget_name. */
@ApplicationScoped
public class GadgetNames implements Projection {

    static final String NAME = "single-war-gadget-names";

    @PersistenceContext(unitName = "single-war")
    EntityManager em;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public void refresh(String id) {
        Gadget gadget = em.find(Gadget.class, Long.valueOf(id));
        em.createNativeQuery("DELETE FROM single_war_gadget_name WHERE id = ?1").setParameter(1, Long.valueOf(id))
                .executeUpdate();
        if (gadget != null) {
            em.createNativeQuery("INSERT INTO single_war_gadget_name (id, name) VALUES (?1, ?2)")
                    .setParameter(1, Long.valueOf(id)).setParameter(2, gadget.getName().toUpperCase()).executeUpdate();
        }
    }
}
