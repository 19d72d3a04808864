package dev.projections.console;

import dev.projections.ee.admin.ConsoleReads;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Instant;

/**
 * What "now" is for the console's pages, in one place. Ages, states and "in 3 min" are measured against the server's
 * wall clock: the operator compares them with the time on their own screen. The trend windows are cut by the engine's
 * clock instead, which wrote the trend minutes (tests move it forward; a window cut by the wall clock would then miss
 * the minutes the engine just wrote).
 */
@ApplicationScoped
public class ConsoleClock {

    private final Clock wall = Clock.systemUTC();

    @Inject
    ConsoleReads reads;

    /** The instant a page is drawn at: every age and state on it is measured against this one. */
    public Instant now() {
        return wall.instant();
    }

    /** The engine's clock, which the trend minutes were written by. */
    public Instant engineNow() {
        return reads.now();
    }
}
