package dev.projections.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A deployed application's test support, from its tests outside the server: {@code POST …/projections/test/idle} and
 * {@code …/refresh} (the application sets {@code projection.test-support=true}; never in production). Waiting for
 * idle instead of polling a read model makes a test as fast as the refresh and never flaky on a slow machine:
 * <pre>{@code
 * ProjectionsTestClient projections = ProjectionsTestClient.at("http://localhost:8080/projections");
 * post("/library/api/books", "title=Dune");
 * projections.assertIdle(Duration.ofSeconds(30), "book-titles");
 * assertEquals("Dune — Frank Herbert", get("/library/api/books/1/title"));
 * }</pre>
 * The URL is where the application serves the console: {@code /projections} for an EAR with the starter, the WAR's
 * context root and {@code /projections} for a single WAR.
 */
public final class ProjectionsTestClient {

    private static final Pattern IDLE = Pattern.compile("\"idle\"\\s*:\\s*(true|false)");
    private static final Pattern WAITED = Pattern.compile("\"waitedMs\"\\s*:\\s*(\\d+)");
    private static final Pattern MADE_DUE = Pattern.compile("\"madeDue\"\\s*:\\s*(\\d+)");

    private final URI base;
    private final HttpClient http;

    private ProjectionsTestClient(URI base) {
        this.base = base;
        this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(10)).build();
    }

    /** The test support under {@code url}, the application's {@code /projections} (for example http://host:8080/projections). */
    public static ProjectionsTestClient at(String url) {
        if (url == null || url.isBlank()) {
            throw new IllegalArgumentException("the URL of the application's /projections is needed, was " + url);
        }
        URI uri = URI.create(url.endsWith("/") ? url.substring(0, url.length() - 1) : url);
        if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme())) {
            throw new IllegalArgumentException("an http or https URL is needed, was " + url);
        }
        return new ProjectionsTestClient(uri);
    }

    /** Where this client sends its requests: the application's {@code /projections}. */
    public URI base() {
        return base;
    }

    /**
     * Waits up to {@code timeout} (at most the application's {@code projection.await-max-timeout}, 30 s by default)
     * until {@code projections} (every deployed projection when none is named) have no mark at all — pending, failing
     * or parked; what the server said.
     */
    public Idle awaitIdle(Duration timeout, String... projections) {
        String body = post("idle", projections, "timeout=" + timeout.toMillis() + "ms",
                timeout.plusSeconds(30));
        Matcher idle = IDLE.matcher(body);
        if (!idle.find()) {
            throw new IllegalStateException("not an answer of the test support: " + body);
        }
        Matcher waited = WAITED.matcher(body);
        return new Idle(Boolean.parseBoolean(idle.group(1)),
                Duration.ofMillis(waited.find() ? Long.parseLong(waited.group(1)) : 0), body);
    }

    /** As {@link #awaitIdle}, failing the test with the counts the server gave when the projections are not idle. */
    public Idle assertIdle(Duration timeout, String... projections) {
        Idle answer = awaitIdle(timeout, projections);
        if (!answer.idle()) {
            // the server may have waited less than asked: its await-max-timeout caps the wait
            throw new AssertionError("not idle after " + answer.waited() + " (asked " + timeout + ", "
                    + (projections.length == 0 ? "every projection" : String.join(", ", projections)) + "): "
                    + answer.body());
        }
        return answer;
    }

    /**
     * Makes the marks of {@code projections} (all when none is named) that wait for a retry due now — parked ones stay
     * parked — and returns how many it made due; pair it with {@link #assertIdle} to wait for their refresh.
     */
    public int refreshNow(String... projections) {
        String body = post("refresh", projections, null, Duration.ofSeconds(30));
        Matcher madeDue = MADE_DUE.matcher(body);
        if (!madeDue.find()) {
            throw new IllegalStateException("not an answer of the test support: " + body);
        }
        return Integer.parseInt(madeDue.group(1));
    }

    private String post(String action, String[] projections, String extra, Duration requestTimeout) {
        List<String> query = new ArrayList<>();
        for (String projection : projections) {
            query.add("projection=" + URLEncoder.encode(projection, StandardCharsets.UTF_8));
        }
        if (extra != null) {
            query.add(extra);
        }
        URI uri = URI.create(base + "/test/" + action + (query.isEmpty() ? "" : "?" + String.join("&", query)));
        HttpResponse<String> response;
        try {
            response = http.send(HttpRequest.newBuilder(uri).timeout(requestTimeout)
                    .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
        } catch (HttpTimeoutException e) {
            throw new UncheckedIOException("no answer from " + uri + " within " + requestTimeout
                    + ": the application is slow to answer (its database?)", e);
        } catch (IOException e) {
            throw new UncheckedIOException("no answer from " + uri + ": is the application deployed?", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted waiting for " + uri, e);
        }
        return switch (response.statusCode()) {
            case 200 -> response.body();
            case 400 -> throw new IllegalArgumentException(uri + " refused: " + response.body());
            case 404 -> throw new IllegalStateException(uri + " answered 404: the application's test support is off"
                    + " (set projection.test-support=true in its settings, never in production), or " + base
                    + " is not where it serves /projections");
            default -> throw new IllegalStateException(uri + " answered " + response.statusCode() + ": "
                    + response.body());
        };
    }

    /**
     * What an idle wait came to: {@code idle}, how long the server waited, and its whole answer (the pending, failing
     * and parked counts per projection).
     */
    public record Idle(boolean idle, Duration waited, String body) {
    }
}
