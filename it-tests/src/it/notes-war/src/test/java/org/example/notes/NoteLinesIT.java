package org.example.notes;

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
 * The WAR's own test of its read model, against the deployed WAR, whose test support is under its context root:
 * {@code mvn verify -DskipITs=false -Dprojections.test.url=http://localhost:8080/notes/projections}.
 */
@ExtendWith(ProjectionsExtension.class)
class NoteLinesIT {

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @Test
    void aNewNoteReachesItsLine(ProjectionsTestClient projections) throws Exception {
        URI notes = projections.base().resolve("/notes/api/notes");
        HttpResponse<String> created = http.send(HttpRequest.newBuilder(notes)
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("text=call+the+plumber")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, created.statusCode(), created.body());
        String id = created.body();

        projections.assertIdle(Duration.ofSeconds(30), "note-lines");

        String line = http.send(HttpRequest.newBuilder(URI.create(notes + "/" + id + "/line")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        assertEquals("#" + id + ": call the plumber", line);
    }
}
