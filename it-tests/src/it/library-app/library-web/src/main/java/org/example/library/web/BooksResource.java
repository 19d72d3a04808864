package org.example.library.web;

import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.FormParam;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.example.library.Library;

/** {@code POST /api/books} (form: title, author) → id; {@code PUT /api/books/{id}}; {@code GET /api/books/{id}/title}. */
@Path("/books")
@RequestScoped
@Produces(MediaType.TEXT_PLAIN)
public class BooksResource {

    @Inject
    Library library;

    @POST
    public String add(@FormParam("title") String title, @FormParam("author") String author) {
        return String.valueOf(library.add(title, author));
    }

    @PUT
    @Path("/{id}")
    public String retitle(@PathParam("id") long id, @FormParam("title") String title) {
        if (!library.retitle(id, title)) {
            throw new NotFoundException();
        }
        return "ok";
    }

    /** The read model's line, 404 until the projection wrote it. */
    @GET
    @Path("/{id}/title")
    public String title(@PathParam("id") long id) {
        String line = library.titleLine(id);
        if (line == null) {
            throw new NotFoundException();
        }
        return line;
    }
}
