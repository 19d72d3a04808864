package org.example.library;

import jakarta.ejb.Stateless;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.util.List;

/**
 * The work of the "book-titles" projection, in an EJB of the unit's module: Payara and GlassFish resolve a CDI bean's
 * {@code @PersistenceContext} in the module of its caller (the engine's), an EJB's in its own (docs/pitfalls.md #62).
 * Runs in the engine's transaction.
 */
@Stateless
public class BookTitles {

    @PersistenceContext(unitName = "library")
    EntityManager em;

    public void refresh(long bookId) {
        Book book = em.find(Book.class, bookId);
        BookTitle row = em.find(BookTitle.class, bookId);
        if (book == null) {
            if (row != null) {
                em.remove(row);
            }
            return;
        }
        em.merge(new BookTitle(bookId, book.getTitle() + " — " + book.getAuthor()));
    }

    public List<Long> ids(long after, int limit) {
        return em.createQuery("SELECT b.id FROM Book b WHERE b.id > :after ORDER BY b.id", Long.class)
                .setParameter("after", after).setMaxResults(limit).getResultList();
    }
}
