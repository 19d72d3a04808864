package org.example.library;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** The read model: one row per book, written only by {@link BookTitlesProjection}. */
@Entity
@Table(name = "book_titles")
public class BookTitle {

    @Id
    private Long bookId;

    private String line;

    protected BookTitle() {
    }

    BookTitle(Long bookId, String line) {
        this.bookId = bookId;
        this.line = line;
    }

    public String getLine() {
        return line;
    }
}
