package org.example.library;

import jakarta.ejb.Stateless;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;

/** The application's business transactions: nothing in them knows about projections. */
@Stateless
public class Library {

    @PersistenceContext(unitName = "library")
    EntityManager em;

    public long add(String title, String author) {
        Book book = new Book(title, author);
        em.persist(book);
        em.flush();
        return book.getId();
    }

    public boolean retitle(long id, String title) {
        Book book = em.find(Book.class, id);
        if (book == null) {
            return false;
        }
        book.setTitle(title);
        return true;
    }

    public String titleLine(long id) {
        BookTitle row = em.find(BookTitle.class, id);
        return row == null ? null : row.getLine();
    }
}
