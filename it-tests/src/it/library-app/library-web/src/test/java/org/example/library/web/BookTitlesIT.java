package org.example.library.web;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.projections.test.ProjectionsExtension;
import dev.projections.test.ProjectionsTestClient;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The application's own test of its read model, against the deployed application: it waits for the refresh through
 * the test support (projection.test-support=true in META-INF/projection.properties) instead of polling. Run with
 * {@code mvn verify -DskipITs=false -Dprojections.test.url=http://localhost:8080/projections}.
 */
@ExtendWith(ProjectionsExtension.class)
class BookTitlesIT {

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @Test
    void aNewBookReachesItsTitleLine(ProjectionsTestClient projections) throws Exception {
        URI books = projections.base().resolve("/library/api/books");
        HttpResponse<String> created = http.send(HttpRequest.newBuilder(books)
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("title=Middlemarch&author=George+Eliot")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, created.statusCode(), created.body());
        String id = created.body();

        projections.assertIdle(Duration.ofSeconds(30), "book-titles");

        String line = http.send(HttpRequest.newBuilder(URI.create(books + "/" + id + "/title")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        assertEquals("Middlemarch — George Eliot", line);
    }
}
