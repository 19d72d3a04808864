package org.example.library;

import dev.projections.Projection;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.util.List;

/** Keeps "Title — Author" per book; called by the engine in a transaction of its own, after the change committed. */
@ApplicationScoped
public class BookTitlesProjection implements Projection {

    @PersistenceContext(unitName = "library")
    EntityManager em;

    @Override
    public String name() {
        return "book-titles";
    }

    @Override
    public void refresh(String id) {
        Long bookId = Long.valueOf(id);
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

    @Override
    public List<String> ids(String after, int limit) {
        return em.createQuery("SELECT b.id FROM Book b WHERE b.id > :after ORDER BY b.id", Long.class)
                .setParameter("after", after == null ? Long.MIN_VALUE : Long.parseLong(after))
                .setMaxResults(limit).getResultList().stream().map(String::valueOf).toList();
    }
}
