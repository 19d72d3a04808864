package org.example.shelf;

import dev.projections.Projections;
import jakarta.ejb.Stateless;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;

/** The business transactions, each a container-managed JTA transaction: nothing in them but JPA. */
@Stateless
public class Shelves {

    @PersistenceContext(unitName = "shelf")
    EntityManager em;

    @Inject
    Projections projections;

    public void add(long id, String shelf, String name) {
        em.persist(new Item(id, shelf, name));
    }

    /** Moves an item: its old shelf and its new one are both marked. */
    public void move(long id, String shelf) {
        em.find(Item.class, id).moveTo(shelf);
    }

    /** Adds an item, flushes, then fails: the transaction rolls back, and nothing may be marked. */
    public void addThenFail(long id, String shelf) {
        em.persist(new Item(id, shelf, "never"));
        em.flush();
        throw new IllegalStateException("failing on purpose after the flush");
    }

    /** An explicit mark and an entity change in one transaction: written together at commit (docs/contract.md §3). */
    public void addAndMark(long id, String shelf, String alsoMarked) {
        projections.markDirty("shelf-counts", alsoMarked);
        em.persist(new Item(id, shelf, "marked"));
    }

    /**
     * An explicit mark, then a projected entity only read: the persistence context takes the mark over and writes
     * nothing of its own, and the mark must still be written with the commit.
     */
    public void markAndRead(long id, String alsoMarked) {
        projections.markDirty("shelf-counts", alsoMarked);
        em.find(Item.class, id);
    }

    public Long count(String shelf) {
        ShelfCount row = em.find(ShelfCount.class, shelf);
        return row == null ? null : row.items();
    }
}
