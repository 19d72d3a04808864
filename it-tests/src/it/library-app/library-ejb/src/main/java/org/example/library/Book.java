package org.example.library;

import dev.projections.Projected;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.Id;

/** The write model: a book. Every committed change of one marks its row of the "book-titles" read model. */
@Entity
@Projected("book-titles")
public class Book {

    @Id
    @GeneratedValue
    private Long id;

    private String title;

    private String author;

    protected Book() {
    }

    public Book(String title, String author) {
        this.title = title;
        this.author = author;
    }

    public Long getId() {
        return id;
    }

    public String getTitle() {
        return title;
    }

    public void setTitle(String title) {
        this.title = title;
    }

    public String getAuthor() {
        return author;
    }
}
