package dev.projections;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A table of the guide that the code generates, between a start marker (a comment naming its source) and
 * {@value #END}: the tests compare it with what the code generates now and, run with
 * {@code -Dprojection.docs.regenerate=true}, write it again instead of failing.
 */
public record GeneratedTable(Path document, String startMarker, String regeneratingTest) {

    public static final String END = "<!-- end of the generated table -->";

    /** Passes when the document holds {@code generated}; else writes it when asked to, or fails saying how to. */
    public void assertHolds(String generated) throws IOException {
        String text = Files.readString(document);
        int start = text.indexOf(startMarker);
        int end = text.indexOf(END, Math.max(start, 0));
        assertThat(start).as("the generated table's start marker in " + document).isNotNegative();
        assertThat(end).as("the generated table's end marker in " + document).isNotNegative();
        int from = text.indexOf('\n', start) + 1;
        if (text.substring(from, end).equals(generated)) {
            return;
        }
        if (Boolean.getBoolean("projection.docs.regenerate")) {
            Files.writeString(document, text.substring(0, from) + generated + text.substring(end));
            return;
        }
        fail(document + " is not what the code generates: write it again with mvn -pl projection-core test -Dtest="
                + regeneratingTest + " -Dprojection.docs.regenerate=true");
    }
}
