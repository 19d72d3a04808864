package dev.projections.payara;

import java.net.CookieManager;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;

/** A browser-like HTTP client of one server (cookies kept, redirects followed), as the Payara and GlassFish tests use it. */
final class Http {

    private final int port;
    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).cookieHandler(new CookieManager())
            .followRedirects(HttpClient.Redirect.NORMAL).connectTimeout(Duration.ofSeconds(10)).build();

    Http(int port) {
        this.port = port;
    }

    int port() {
        return port;
    }

    HttpResponse<String> get(String path) throws Exception {
        return send(HttpRequest.newBuilder(uri(path)).GET());
    }

    HttpResponse<String> postJson(String path, String json) throws Exception {
        return send(HttpRequest.newBuilder(uri(path)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json)));
    }

    HttpResponse<String> putJson(String path, String json) throws Exception {
        return send(HttpRequest.newBuilder(uri(path)).header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(json)));
    }

    HttpResponse<String> postForm(String path, Map<String, String> fields) throws Exception {
        String body = new LinkedHashMap<>(fields).entrySet().stream()
                .map(e -> URLEncoder.encode(e.getKey(), StandardCharsets.UTF_8) + "="
                        + URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8))
                .collect(Collectors.joining("&"));
        return send(HttpRequest.newBuilder(uri(path)).header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(body)));
    }

    /** A form already encoded ({@code title=Dune&author=Frank+Herbert}) sent with {@code method}. */
    HttpResponse<String> form(String method, String path, String encoded) throws Exception {
        return send(HttpRequest.newBuilder(uri(path)).header("Content-Type", "application/x-www-form-urlencoded")
                .method(method, HttpRequest.BodyPublishers.ofString(encoded)));
    }

    /** Servlet FORM login: ask for a protected page, post the form, land on the page (or the error page). */
    HttpResponse<String> login(String user, String password) throws Exception {
        return login("/projections", user, password);
    }

    /** The same for the console under {@code base} (a single WAR's: {@code /notes/projections}). */
    HttpResponse<String> login(String base, String user, String password) throws Exception {
        get(base + "/");
        return postForm(base + "/j_security_check", Map.of("j_username", user, "j_password", password));
    }

    private HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
        return client.send(request.timeout(Duration.ofSeconds(30)).build(),
                HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    }

    private URI uri(String path) {
        return URI.create("http://127.0.0.1:" + port + path);
    }
}
