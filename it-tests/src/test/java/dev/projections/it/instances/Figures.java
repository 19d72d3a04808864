package dev.projections.it.instances;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The fault tests' figures, printed and appended to {@code target/fault-figures.txt} for the README. */
final class Figures {

    private Figures() {
    }

    static void report(String line) throws IOException {
        System.out.println("[faults] " + line);
        Files.writeString(Path.of("target", "fault-figures.txt"), line + System.lineSeparator(),
                StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }

    /** The sum of a server's refresh counts with {@code outcome}, from its Prometheus endpoint. */
    static long refreshes(String metricsUrl, String outcome) throws IOException, InterruptedException {
        String text = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build().send(HttpRequest.newBuilder(URI.create(metricsUrl)).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        Matcher matcher = Pattern.compile("projection_refresh_seconds_count\\{outcome=\"" + outcome
                + "\"[^}]*} ([0-9.E]+)").matcher(text);
        long total = 0;
        while (matcher.find()) {
            total += (long) Double.parseDouble(matcher.group(1));
        }
        return total;
    }
}
