package dev.projections.console.api;

import dev.projections.ee.admin.ActionRefused;
import dev.projections.ops.DatabaseFailure;
import dev.projections.ops.NoSuchMark;
import dev.projections.ops.UnknownProjection;
import jakarta.json.Json;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A request the management API answers with an error, written as {@code application/problem+json} (RFC 9457): the
 * status, its title and a detail that names the bad value. Details are the engine's and the API's own messages, never a
 * stack trace or a class name.
 */
final class ApiProblem extends RuntimeException {

    private final int status;
    private final Map<String, String> headers = new LinkedHashMap<>();

    ApiProblem(int status, String detail) {
        super(detail, null, false, false);
        this.status = status;
        if (status == HttpServletResponse.SC_UNAUTHORIZED) {
            headers.put("WWW-Authenticate", "Basic realm=\"Projections\", charset=\"UTF-8\"");
        }
    }

    /** A header the answer carries: {@code Allow} of a 405, {@code Retry-After} of a 429. */
    ApiProblem withHeader(String name, String value) {
        headers.put(name, value);
        return this;
    }

    static ApiProblem badRequest(String detail) {
        return new ApiProblem(HttpServletResponse.SC_BAD_REQUEST, detail);
    }

    static ApiProblem notFound(String detail) {
        return new ApiProblem(HttpServletResponse.SC_NOT_FOUND, detail);
    }

    static ApiProblem conflict(String detail) {
        return new ApiProblem(HttpServletResponse.SC_CONFLICT, detail);
    }

    /**
     * What the engine refused, by the type of what refused it: an unknown projection or a mark not in the state the
     * action needs is not found (404), another bad argument the caller's (400), a state that does not allow the action
     * — a rebuild already running, a projection that cannot be rebuilt — a conflict (409), and the database failing
     * the action the server's trouble (503), not the caller's.
     */
    static ApiProblem refused(ActionRefused refused) {
        Throwable cause = refused.getCause();
        if (cause instanceof DatabaseFailure failure) {
            // the database's own text may quote SQL and driver internals: it goes to the log, not the caller
            Logger.getLogger(ApiProblem.class.getName()).log(Level.WARNING,
                    "PRJ502: management API action failed in the database", failure);
            return new ApiProblem(HttpServletResponse.SC_SERVICE_UNAVAILABLE, "the database could not "
                    + failure.what() + "; nothing was done, and the server's log has the cause");
        }
        if (cause instanceof UnknownProjection || cause instanceof NoSuchMark) {
            return notFound(refused.getMessage());
        }
        if (cause instanceof IllegalArgumentException) {
            return badRequest(refused.getMessage());
        }
        return conflict(refused.getMessage());
    }

    int status() {
        return status;
    }

    /** A header the answer carries, {@code null} when none of that name. */
    String header(String name) {
        return headers.get(name);
    }

    void write(HttpServletResponse response, String instance) throws IOException {
        response.setStatus(status);
        headers.forEach(response::setHeader);
        response.setContentType("application/problem+json");
        response.setCharacterEncoding("UTF-8");
        response.getWriter().write(Json.createObjectBuilder()
                .add("type", "about:blank")
                .add("title", title(status))
                .add("status", status)
                .add("detail", getMessage())
                .add("instance", instance)
                .build().toString());
    }

    private static String title(int status) {
        return switch (status) {
            case 400 -> "Bad Request";
            case 401 -> "Unauthorized";
            case 403 -> "Forbidden";
            case 404 -> "Not Found";
            case 405 -> "Method Not Allowed";
            case 409 -> "Conflict";
            case 415 -> "Unsupported Media Type";
            case 429 -> "Too Many Requests";
            case 503 -> "Service Unavailable";
            default -> "Internal Server Error";
        };
    }
}
