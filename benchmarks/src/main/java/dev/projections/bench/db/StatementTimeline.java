package dev.projections.bench.db;

import java.util.ArrayList;
import java.util.List;

/**
 * When each statement and commit of one timed commit ran, on every connection {@link StatementCounting} wraps: the
 * business unit's and the engine's. Scenario 4 arms it just before a business commit and reads it once the read
 * model shows the change, so the time from commit to read model splits into its steps (the marks' upsert, the
 * claim, the refresh, the ack, each commit, and the gaps between them where only Java runs). Disarmed it costs one
 * volatile read per call; the benchmark runs one timed commit at a time, hence one timeline for the JVM.
 */
public final class StatementTimeline {

    /** What happened on a connection. */
    public enum Kind { EXECUTE, COMMIT }

    /**
     * One statement or commit: its start and end in {@link System#nanoTime} and, for a statement, its SQL's first
     * characters; {@code connection} tells the connections apart.
     */
    public record Event(Kind kind, String sql, int connection, long start, long end) {

        public boolean is(Kind kind, String sqlStart) {
            return this.kind == kind && (sqlStart == null || sql != null && sql.startsWith(sqlStart));
        }
    }

    private static final List<Event> EVENTS = new ArrayList<>();
    private static volatile boolean armed;

    private StatementTimeline() {
    }

    /** Forgets what was recorded and records from now on. */
    public static synchronized void arm() {
        EVENTS.clear();
        armed = true;
    }

    /** Stops recording and returns what was recorded since {@link #arm}, in the order the events ended. */
    public static synchronized List<Event> disarm() {
        armed = false;
        return List.copyOf(EVENTS);
    }

    static boolean armed() {
        return armed;
    }

    static synchronized void record(Kind kind, String sql, int connection, long start, long end) {
        if (armed) {
            EVENTS.add(new Event(kind, sql == null ? null : sql.strip(), connection, start, end));
        }
    }
}
