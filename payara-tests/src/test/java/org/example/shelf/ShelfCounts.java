package org.example.shelf;

import jakarta.ejb.Stateless;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.util.List;

/** Counts a shelf's items, in portable JPQL: the unit runs on Payara's own provider, EclipseLink. */
@Stateless
public class ShelfCounts {

    @PersistenceContext(unitName = "shelf")
    EntityManager em;

    public void refresh(String shelf) {
        long items = em.createQuery("SELECT COUNT(i) FROM Item i WHERE i.shelf = :shelf", Long.class)
                .setParameter("shelf", shelf).getSingleResult();
        ShelfCount row = em.find(ShelfCount.class, shelf);
        if (items == 0) {
            if (row != null) {
                em.remove(row);
            }
            return;
        }
        em.merge(new ShelfCount(shelf, items));
    }

    public List<String> shelves(String after, int limit) {
        return em.createQuery("SELECT DISTINCT i.shelf FROM Item i WHERE i.shelf > :after ORDER BY i.shelf", String.class)
                .setParameter("after", after == null ? "" : after).setMaxResults(limit).getResultList();
    }
}
