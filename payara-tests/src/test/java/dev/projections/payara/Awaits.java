package dev.projections.payara;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.function.Predicate;

/** Waiting for what a server does after the commit: polled every 200 ms, generous deadlines (the machine may be busy). */
final class Awaits {

    interface Probe<T> {
        T read() throws Exception;
    }

    private Awaits() {
    }

    /** The body of {@code path} once {@code done} accepts it (a status other than 200 is its code and body). */
    static String body(Http http, String path, Predicate<String> done) throws Exception {
        return until(() -> {
            HttpResponse<String> response = http.get(path);
            return response.statusCode() == 200 ? response.body() : response.statusCode() + " " + response.body();
        }, done, Duration.ofSeconds(60));
    }

    static <T> T until(Probe<T> probe, Predicate<T> done, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        T last = probe.read();
        while (!done.test(last)) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("still not there after " + timeout.toSeconds() + " s: " + last);
            }
            Thread.sleep(200);
            last = probe.read();
        }
        return last;
    }
}
