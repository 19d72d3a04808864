package org.example.shelf.web;

import jakarta.ejb.EJB;
import jakarta.enterprise.context.RequestScoped;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Response;
import org.example.shelf.Shelves;

/** HTTP over the shelf application's transactions, for PayaraIT; a CDI bean, so that the EJB is injected. */
@RequestScoped
@Path("items")
public class ShelfResource {

    @EJB
    Shelves shelves;

    @POST
    @Path("{id}")
    public Response add(@PathParam("id") long id, @QueryParam("shelf") String shelf) {
        shelves.add(id, shelf, "item " + id);
        return Response.noContent().build();
    }

    @PUT
    @Path("{id}")
    public Response move(@PathParam("id") long id, @QueryParam("shelf") String shelf) {
        shelves.move(id, shelf);
        return Response.noContent().build();
    }

    @POST
    @Path("{id}/failing")
    public Response addThenFail(@PathParam("id") long id, @QueryParam("shelf") String shelf) {
        try {
            shelves.addThenFail(id, shelf);
            return Response.serverError().entity("did not fail").build();
        } catch (RuntimeException expected) {
            return Response.status(409).entity("rolled back").build();
        }
    }

    @POST
    @Path("{id}/marking")
    public Response addAndMark(@PathParam("id") long id, @QueryParam("shelf") String shelf,
                               @QueryParam("mark") String mark) {
        shelves.addAndMark(id, shelf, mark);
        return Response.noContent().build();
    }

    @POST
    @Path("{id}/reading")
    public Response markAndRead(@PathParam("id") long id, @QueryParam("mark") String mark) {
        shelves.markAndRead(id, mark);
        return Response.noContent().build();
    }

    @GET
    @Path("/counts/{shelf}")
    public Response count(@PathParam("shelf") String shelf) {
        Long items = shelves.count(shelf);
        return items == null ? Response.status(404).build() : Response.ok(String.valueOf(items)).build();
    }
}
