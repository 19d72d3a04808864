package org.example.notes;

import jakarta.ejb.Stateless;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.ws.rs.FormParam;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

/** {@code POST /api/notes} (form: text) → id; {@code GET /api/notes/{id}/line}, 404 until the projection wrote it. */
@Path("/notes")
@Stateless
@Produces(MediaType.TEXT_PLAIN)
public class NotesResource {

    @PersistenceContext(unitName = "notes")
    EntityManager em;

    @POST
    public String add(@FormParam("text") String text) {
        Note note = new Note(text);
        em.persist(note);
        em.flush();
        return String.valueOf(note.getId());
    }

    @GET
    @Path("/{id}/line")
    public String line(@PathParam("id") long id) {
        NoteLine row = em.find(NoteLine.class, id);
        if (row == null) {
            throw new NotFoundException();
        }
        return row.getLine();
    }
}
