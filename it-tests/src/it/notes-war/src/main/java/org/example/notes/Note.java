package org.example.notes;

import dev.projections.Projected;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.Id;

/** The write model: a note. Every committed change of one marks its row of the "note-lines" read model. */
@Entity
@Projected("note-lines")
public class Note {

    @Id
    @GeneratedValue
    private Long id;

    private String text;

    protected Note() {
    }

    public Note(String text) {
        this.text = text;
    }

    public Long getId() {
        return id;
    }

    public String getText() {
        return text;
    }

    public void setText(String text) {
        this.text = text;
    }
}
