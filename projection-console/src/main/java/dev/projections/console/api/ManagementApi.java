package dev.projections.console.api;

import dev.projections.console.LoginThrottle;
import dev.projections.ee.admin.ActionRefused;
import dev.projections.ee.admin.ConsoleAdmin;
import dev.projections.ee.admin.ConsoleReads;
import dev.projections.ee.admin.ConsoleRoles;
import jakarta.ejb.EJBAccessException;
import jakarta.inject.Inject;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.net.URI;
import java.util.ArrayList;
import java.util.Locale;
import java.util.Set;

/**
 * The JSON management API, {@code /projections/api/v1/…} (the OpenAPI document served at /projections/api/v1/openapi.yaml, docs/guide/operations.md "Operating from
 * scripts"): the console's reads and actions for scripts, runbooks and pipelines. Every request but the OpenAPI
 * document authenticates with HTTP Basic ({@link BasicLogin}); reads need {@value ConsoleRoles#VIEWER} or
 * {@value ConsoleRoles#ADMIN}, actions (POST) {@value ConsoleRoles#ADMIN}. Errors are {@code application/problem+json}
 * naming the bad value. Its path is left out of the console's form login (web.xml), so a request is never redirected
 * to a login page: it is answered 401.
 */
public class ManagementApi extends HttpServlet {

    private static final Logger LOG = Logger.getLogger(ManagementApi.class.getName());

    @Inject
    ConsoleReads reads;

    @Inject
    ConsoleAdmin admin;

    private final LoginThrottle throttle = LoginThrottle.shared();

    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
        String path = request.getPathInfo() == null ? "" : request.getPathInfo();
        response.setHeader("Cache-Control", "no-store");
        if (path.equals("/openapi.yaml")) {
            openApi(request, response);
            return;
        }
        try {
            Route route = Route.of(request.getMethod(), path);
            if (route.acts()) {
                refuseBrowserForms(request);
            }
            try (BasicLogin ignored = BasicLogin.of(request, throttle)) {
                allow(request, route.acts());
                reply(response, route.run(new ApiResources(reads, admin, new ApiLinks(request.getContextPath()
                        + request.getServletPath())), request, query(request.getQueryString())));
            }
        } catch (ApiProblem problem) {
            problem.write(response, request.getRequestURI());
        } catch (LoginThrottle.Throttled throttled) {
            new ApiProblem(429, throttled.getMessage())
                    .withHeader("Retry-After", String.valueOf(throttled.retryAfterSeconds())).write(response, request.getRequestURI());
        } catch (EJBAccessException denied) {
            new ApiProblem(HttpServletResponse.SC_FORBIDDEN, "the caller's roles do not allow this")
                    .write(response, request.getRequestURI());
        } catch (RuntimeException failed) {
            // the server's trouble, not the caller's: logged with its cause, answered without it
            LOG.log(Level.SEVERE, "PRJ501: management API request " + request.getMethod() + " " + path + " failed", failed);
            new ApiProblem(HttpServletResponse.SC_INTERNAL_SERVER_ERROR, "the server could not answer; its log has "
                    + "the cause").write(response, request.getRequestURI());
        }
    }

    /**
     * A browser that was once given Basic credentials for this server sends them again on its own, also with a form
     * another site makes it post: so an action is refused when the browser says the request is cross-site
     * ({@code Origin} of another host, {@code Sec-Fetch-Site}), and when it carries a content type other than JSON —
     * a form always does, and a cross-site request with a JSON type needs a preflight this API never grants. A script
     * sends neither header, or JSON.
     */
    static void refuseBrowserForms(HttpServletRequest request) {
        String fetchSite = request.getHeader("Sec-Fetch-Site");
        if (fetchSite != null && !fetchSite.equals("same-origin") && !fetchSite.equals("none")) {
            throw new ApiProblem(HttpServletResponse.SC_FORBIDDEN, "a cross-site request cannot act (Sec-Fetch-Site: "
                    + fetchSite + ")");
        }
        String origin = request.getHeader("Origin");
        if (origin != null && !sameHost(origin, request.getHeader("Host"))) {
            throw new ApiProblem(HttpServletResponse.SC_FORBIDDEN, "a request from another origin cannot act");
        }
        String type = request.getContentType();
        if (type != null && !type.toLowerCase(Locale.ROOT).startsWith("application/json")) {
            throw new ApiProblem(415, "an action takes application/json or no body, was \"" + type + "\"");
        }
    }

    private static boolean sameHost(String origin, String host) {
        try {
            URI uri = URI.create(origin);
            String authority = uri.getPort() < 0 ? uri.getHost() : uri.getHost() + ":" + uri.getPort();
            return host != null && (host.equalsIgnoreCase(authority) || host.equalsIgnoreCase(uri.getHost()));
        } catch (IllegalArgumentException notAUri) {
            return false;
        }
    }

    private static void allow(HttpServletRequest request, boolean acts) {
        boolean admin = request.isUserInRole(ConsoleRoles.ADMIN);
        if (acts ? !admin : !admin && !request.isUserInRole(ConsoleRoles.VIEWER)) {
            throw new ApiProblem(HttpServletResponse.SC_FORBIDDEN, (acts ? "acting needs role " + ConsoleRoles.ADMIN
                    : "reading needs role " + ConsoleRoles.VIEWER + " or " + ConsoleRoles.ADMIN) + "; "
                    + request.getUserPrincipal().getName() + " has neither");
        }
    }

    /**
     * The query string's parameters, the first of each name. Read from the query string itself, not the request's
     * parameters, which would take a form-encoded body for parameters and leave the action an empty body to read.
     */
    static Map<String, String> query(String queryString) {
        Map<String, String> query = new HashMap<>();
        if (queryString == null || queryString.isEmpty()) {
            return query;
        }
        for (String pair : queryString.split("&")) {
            int equals = pair.indexOf('=');
            String name = decode(equals < 0 ? pair : pair.substring(0, equals));
            query.putIfAbsent(name, equals < 0 ? "" : decode(pair.substring(equals + 1)));
        }
        return query;
    }

    private static String decode(String text) {
        try {
            return URLDecoder.decode(text, StandardCharsets.UTF_8);
        } catch (IllegalArgumentException malformed) {
            throw ApiProblem.badRequest("the query string is not URL-encoded: " + malformed.getMessage());
        }
    }

    private static void reply(HttpServletResponse response, ApiResources.Reply reply) throws IOException {
        response.setStatus(reply.status());
        if (reply.location() != null) {
            response.setHeader("Location", reply.location());
        }
        response.setContentType("application/json");
        response.setCharacterEncoding("UTF-8");
        response.getWriter().write(reply.body().build().toString());
    }

    /** The API's description, open like the health endpoint: it tells nothing about this installation. */
    private static void openApi(HttpServletRequest request, HttpServletResponse response) throws IOException {
        if (!request.getMethod().equals("GET") && !request.getMethod().equals("HEAD")) {
            new ApiProblem(405, "the OpenAPI document is read with GET").withHeader("Allow", "GET, HEAD").write(response, request.getRequestURI());
            return;
        }
        try (InputStream yaml = ManagementApi.class.getResourceAsStream("openapi.yaml")) {
            response.setContentType("application/yaml");
            response.setCharacterEncoding("UTF-8");
            yaml.transferTo(response.getOutputStream());
        }
    }

    /** An endpoint: its method, its path with {@code {}} for a name or run id, what it does. */
    record Route(String method, List<String> pattern, boolean acts, Handler handler, List<String> values) {

        @FunctionalInterface
        interface Handler {
            ApiResources.Reply run(ApiResources api, List<String> values, HttpServletRequest request,
                                   Map<String, String> query) throws IOException;
        }

        private static final List<Route> ROUTES = List.of(
                get("projections", (api, v, r, q) -> api.projections()),
                get("projections/{}", (api, v, r, q) -> api.projection(v.get(0))),
                post("projections/{}/pause", (api, v, r, q) -> api.pause(v.get(0))),
                post("projections/{}/resume", (api, v, r, q) -> api.resume(v.get(0))),
                get("projections/{}/rebuilds", (api, v, r, q) -> api.rebuilds(v.get(0))),
                post("projections/{}/rebuilds", (api, v, r, q) -> api.startRebuild(v.get(0), body(r, ApiResources.REBUILD_FIELDS))),
                get("projections/{}/marks", (api, v, r, q) -> api.marks(v.get(0), q)),
                post("projections/{}/marks/retry", (api, v, r, q) -> api.retry(v.get(0), body(r, ApiResources.MARK_ACTION_FIELDS))),
                post("projections/{}/marks/resume", (api, v, r, q) -> api.resumeParked(v.get(0), body(r, ApiResources.MARK_ACTION_FIELDS))),
                post("projections/{}/marks/skip", (api, v, r, q) -> api.skipParked(v.get(0), body(r, ApiResources.MARK_ACTION_FIELDS))),
                post("projections/{}/verifications", (api, v, r, q) -> api.startVerification(v.get(0), body(r, ApiResources.REBUILD_FIELDS))),
                get("rebuilds/{}", (api, v, r, q) -> api.rebuild(v.get(0))),
                get("verifications/{}", (api, v, r, q) -> api.verification(v.get(0))),
                post("verifications/{}/cancel", (api, v, r, q) -> api.cancelVerification(v.get(0))),
                get("instances", (api, v, r, q) -> api.instances()),
                post("rebuilds/{}/cancel", (api, v, r, q) -> api.cancel(v.get(0))));

        private static JsonBody body(HttpServletRequest request, Set<String> fields) throws IOException {
            return JsonBody.read(request.getInputStream(), request.getContentType(), fields);
        }

        private static Route get(String pattern, Handler handler) {
            return new Route("GET", List.of(pattern.split("/")), false, handler, List.of());
        }

        private static Route post(String pattern, Handler handler) {
            return new Route("POST", List.of(pattern.split("/")), true, handler, List.of());
        }

        /** The route of {@code method} and {@code path}: 404 when no route has the path, 405 when none has the method. */
        static Route of(String method, String path) {
            String[] segments = path.startsWith("/") ? path.substring(1).split("/", -1) : new String[] {""};
            List<String> allowed = new ArrayList<>();
            for (Route route : ROUTES) {
                List<String> values = route.match(segments);
                if (values != null) {
                    if (route.method.equals(method)) {
                        return new Route(route.method, route.pattern, route.acts, route.handler, values);
                    }
                    allowed.add(route.method);
                }
            }
            if (allowed.isEmpty()) {
                throw ApiProblem.notFound("no endpoint " + path + " under the management API; see its openapi.yaml");
            }
            throw new ApiProblem(405, method + " is not allowed on " + path + "; allowed: " + allowed)
                    .withHeader("Allow", String.join(", ", allowed));
        }

        private List<String> match(String[] segments) {
            if (segments.length != pattern.size()) {
                return null;
            }
            List<String> values = new ArrayList<>();
            for (int i = 0; i < segments.length; i++) {
                if (pattern.get(i).equals("{}")) {
                    if (segments[i].isEmpty()) {
                        return null;
                    }
                    values.add(segments[i]);
                } else if (!pattern.get(i).equals(segments[i])) {
                    return null;
                }
            }
            return values;
        }

        /**
         * The endpoint's answer; what the engine refused ({@link ActionRefused}) is answered here, once for every
         * endpoint, as the problem its cause's type says ({@link ApiProblem#refused}).
         */
        ApiResources.Reply run(ApiResources api, HttpServletRequest request, Map<String, String> query)
                throws IOException {
            try {
                return handler.run(api, values, request, query);
            } catch (ActionRefused refused) {
                throw ApiProblem.refused(refused);
            }
        }
    }
}
