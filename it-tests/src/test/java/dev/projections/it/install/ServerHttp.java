package dev.projections.it.install;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

/** HTTP to a {@link StockServer}'s applications, as a user's client sends it: forms, test-support waits, bodies. */
final class ServerHttp {

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final StockServer server;

    ServerHttp(StockServer server) {
        this.server = server;
    }

    /** POSTs to a test-support idle endpoint and expects it idle. */
    void assertIdle(String path) throws Exception {
        HttpResponse<String> idle = post(path);
        assertThat(idle.statusCode()).as(idle.body()).isEqualTo(200);
        assertThat(idle.body()).as("nothing left pending").contains("\"idle\":true");
    }

    /** A POST with no body, whatever it answers. */
    HttpResponse<String> post(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(server.url(path))).POST(HttpRequest.BodyPublishers.noBody())
                .build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The body of a 200 answer, else {@code null}. */
    String body(String path) {
        HttpResponse<String> response = get(path);
        return response.statusCode() == 200 ? response.body() : null;
    }

    String managementBody(String path) {
        return send(HttpRequest.newBuilder(URI.create(server.managementUrl(path))).build(), path).body();
    }

    HttpResponse<String> get(String path) {
        return send(HttpRequest.newBuilder(URI.create(server.url(path))).build(), path);
    }

    /** A form sent with {@code method}, expected to succeed. */
    HttpResponse<String> send(String method, String path, String form) {
        HttpResponse<String> response = send(HttpRequest.newBuilder(URI.create(server.url(path)))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .method(method, HttpRequest.BodyPublishers.ofString(form)).build(), path);
        assertThat(response.statusCode()).as(method + " " + path + ": " + response.body()).isBetween(200, 299);
        return response;
    }

    /** A request with its headers as given, whatever it answers. */
    HttpResponse<String> send(HttpRequest request, String what) {
        try {
            return http.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (Exception e) {
            throw new IllegalStateException(what, e);
        }
    }
}
