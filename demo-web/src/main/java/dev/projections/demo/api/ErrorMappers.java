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
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Every refused request answers with a JSON body {@code {"error": "…"}}. Messages are the API's own: the
 * runtime's (JSON-B's, RESTEasy's) name internal classes and are never passed on.
 */
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
    public static class NotFound implements ExceptionMapper<NotFoundJson> {
        @Override
        public Response toResponse(NotFoundJson e) {
            return error(Response.Status.NOT_FOUND, e.getMessage());
        }
    }

    private static final Pattern PROPERTY = Pattern.compile("property '([A-Za-z]+)'");

    /**
     * A body that is not JSON, or a field of the wrong type: the innermost field JSON-B names is given ("quantity"
     * inside "lines"), JSON-B's own text is not passed on.
     */
    static String unreadableBody(Throwable e) {
        String field = null;
        for (Throwable t = e; t != null && t.getCause() != t; t = t.getCause()) {
            Matcher property = t.getMessage() == null ? null : PROPERTY.matcher(t.getMessage());
            if (property != null && property.find()) {
                field = property.group(1);
            }
        }
        return field == null ? "malformed JSON: the body is not the JSON object this operation expects"
                : "malformed JSON: field \"" + field + "\" has the wrong type";
    }

    /** 413 for a body cut off by {@link BodySizeLimit}, else 400 naming the field JSON-B could not read. */
    static Response unreadable(Throwable e) {
        for (Throwable t = e; t != null && t.getCause() != t; t = t.getCause()) {
            if (t instanceof BodySizeLimit.TooLarge) {
                return error(Response.Status.REQUEST_ENTITY_TOO_LARGE, BodySizeLimit.MESSAGE);
            }
        }
        return error(Response.Status.BAD_REQUEST, unreadableBody(e));
    }

    @Provider
    public static class MalformedJson implements ExceptionMapper<JsonbException> {
        @Override
        public Response toResponse(JsonbException e) {
            return unreadable(e);
        }
    }

    @Provider
    public static class Unreadable implements ExceptionMapper<ProcessingException> {
        @Override
        public Response toResponse(ProcessingException e) {
            return unreadable(e);
        }
    }

    /** A body refused by its announced length, before JSON-B reads it. */
    @Provider
    public static class TooLarge implements ExceptionMapper<BodySizeLimit.TooLarge> {
        @Override
        public Response toResponse(BodySizeLimit.TooLarge e) {
            return unreadable(e);
        }
    }

    @Provider
    public static class WebApplication implements ExceptionMapper<WebApplicationException> {
        @Override
        public Response toResponse(WebApplicationException e) {
            Response.Status status = Response.Status.fromStatusCode(e.getResponse().getStatus());
            if (status == null) {
                status = Response.Status.BAD_REQUEST;
            }
            return error(status, switch (status) {
                case NOT_FOUND -> "no such resource";
                case METHOD_NOT_ALLOWED -> "method not allowed here";
                case UNSUPPORTED_MEDIA_TYPE -> "send the body as Content-Type: application/json";
                case NOT_ACCEPTABLE -> "this API answers application/json";
                default -> status.getReasonPhrase();
            });
        }
    }
}
