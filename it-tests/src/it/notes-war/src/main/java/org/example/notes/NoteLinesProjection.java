package org.example.notes;

import dev.projections.Projection;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.util.List;

/** Keeps "#id: text" per note; in a single WAR the engine sees the projection beside it. */
@ApplicationScoped
public class NoteLinesProjection implements Projection {

    @PersistenceContext(unitName = "notes")
    EntityManager em;

    @Override
    public String name() {
        return "note-lines";
    }

    @Override
    public void refresh(String id) {
        Long noteId = Long.valueOf(id);
        Note note = em.find(Note.class, noteId);
        NoteLine row = em.find(NoteLine.class, noteId);
        if (note == null) {
            if (row != null) {
                em.remove(row);
            }
            return;
        }
        em.merge(new NoteLine(noteId, "#" + noteId + ": " + note.getText()));
    }

    @Override
    public List<String> ids(String after, int limit) {
        return em.createQuery("SELECT n.id FROM Note n WHERE n.id > :after ORDER BY n.id", Long.class)
                .setParameter("after", after == null ? Long.MIN_VALUE : Long.parseLong(after))
                .setMaxResults(limit).getResultList().stream().map(String::valueOf).toList();
    }
}
