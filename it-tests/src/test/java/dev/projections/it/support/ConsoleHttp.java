package dev.projections.it.support;

import java.io.IOException;
import java.net.CookieManager;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.stream.Collectors;

/** The console over plain HTTP, with a session of its own: for the login redirect and forged requests. */
public final class ConsoleHttp {

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).cookieHandler(new CookieManager())
            .followRedirects(HttpClient.Redirect.NEVER).build();

    public HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create(Browser.CONSOLE + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** A form POST, sent with the given extra headers (an {@code Origin}, say). */
    public HttpResponse<String> post(String path, Map<String, String> form, Map<String, String> headers)
            throws IOException, InterruptedException {
        String body = form.entrySet().stream().map(e -> URLEncoder.encode(e.getKey(), StandardCharsets.UTF_8) + "="
                + URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8)).collect(Collectors.joining("&"));
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(Browser.CONSOLE + path))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        headers.forEach(request::header);
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** A JSON POST with this client's cookies (its console session, once logged in) and nothing else. */
    public HttpResponse<String> postJson(String path, String json) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create(Browser.CONSOLE + path))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** Logs in through the form login, as a browser would: the protected page first, then the form. */
    public void logIn(String user, String password) throws IOException, InterruptedException {
        get("");
        HttpResponse<String> login = post("j_security_check", Map.of("j_username", user, "j_password", password),
                Map.of());
        if (login.statusCode() != 302) {
            throw new IllegalStateException("login of " + user + " failed: " + login.statusCode());
        }
    }
}
