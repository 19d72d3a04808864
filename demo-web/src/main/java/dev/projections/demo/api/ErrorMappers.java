package dev.projections.demo.api;

import dev.projections.demo.orders.boundary.DemoRequestException;
import dev.projections.demo.orders.boundary.UnknownOrderException;
import jakarta.json.bind.JsonbException;
import jakarta.ws.rs.ProcessingException;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;
import java.util.Map;

/** Every refused request answers with a JSON body {@code {"error": "…"}}. */
final class ErrorMappers {

    private ErrorMappers() {
    }

    static Response error(Response.Status status, String message) {
        return Response.status(status).type(MediaType.APPLICATION_JSON)
                .entity(Map.of("error", message == null ? status.getReasonPhrase() : message)).build();
    }

    @Provider
    public static class BadRequest implements ExceptionMapper<BadRequestJson> {
        @Override
        public Response toResponse(BadRequestJson e) {
            return error(Response.Status.BAD_REQUEST, e.getMessage());
        }
    }

    @Provider
    public static class RefusedByDemo implements ExceptionMapper<DemoRequestException> {
        @Override
        public Response toResponse(DemoRequestException e) {
            return error(Response.Status.BAD_REQUEST, e.getMessage());
        }
    }

    @Provider
    public static class UnknownOrder implements ExceptionMapper<UnknownOrderException> {
        @Override
        public Response toResponse(UnknownOrderException e) {
            return error(Response.Status.NOT_FOUND, e.getMessage());
        }
    }

    @Provider
    public static class MalformedJson implements ExceptionMapper<JsonbException> {
        @Override
        public Response toResponse(JsonbException e) {
            return error(Response.Status.BAD_REQUEST, "malformed JSON: " + e.getMessage());
        }
    }

    @Provider
    public static class Unreadable implements ExceptionMapper<ProcessingException> {
        @Override
        public Response toResponse(ProcessingException e) {
            return error(Response.Status.BAD_REQUEST, "unreadable request: " + e.getMessage());
        }
    }

    @Provider
    public static class WebApplication implements ExceptionMapper<WebApplicationException> {
        @Override
        public Response toResponse(WebApplicationException e) {
            Response.Status status = Response.Status.fromStatusCode(e.getResponse().getStatus());
            return error(status == null ? Response.Status.BAD_REQUEST : status, e.getMessage());
        }
    }
}
