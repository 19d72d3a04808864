package org.example.notes;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** The read model: one row per note, written only by {@link NoteLinesProjection}. */
@Entity
@Table(name = "note_lines")
public class NoteLine {

    @Id
    private Long noteId;

    private String line;

    protected NoteLine() {
    }

    NoteLine(Long noteId, String line) {
        this.noteId = noteId;
        this.line = line;
    }

    public String getLine() {
        return line;
    }
}
