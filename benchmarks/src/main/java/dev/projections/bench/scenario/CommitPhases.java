package dev.projections.bench.scenario;

import dev.projections.bench.Series;
import dev.projections.bench.TextTable;
import dev.projections.bench.db.StatementTimeline;
import dev.projections.bench.db.StatementTimeline.Event;
import dev.projections.bench.db.StatementTimeline.Kind;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.function.Predicate;

/**
 * Scenario 4's commits split into their steps, from the {@link StatementTimeline} of each: where the engine's time
 * from commit to read model goes beside the synchronous bound's. A step is the time from the end of the one before
 * to its own end, so the steps of one commit add up to its latency; the table gives each step's median over the
 * commits, which need not add up to the median latency exactly. A commit whose timeline lacks a step (a sweep's claim
 * took its key, a claim by another statement than PostgreSQL's one) is left out and counted.
 */
final class CommitPhases {

    /** The steps, in order; the bound has those its name says it has and 0 for the others. */
    private static final String[] STEPS = {
        "flush: Hibernate's statements, the marking",
        "the marks' upsert (engine only)",
        "business commit",
        "after the commit: hand-off, drainer wakes, claim sent",
        "claim statement (and a due claim, when it looks)",
        "claim commit (does not wait for the disk)",
        "claim → refresh sent (engine); commit → refresh sent (bound)",
        "refresh statement",
        "ack (engine only)",
        "refresh commit",
        "refresh commit → listener (engine only)",
    };

    private final List<List<Double>> engine = lists();
    private final List<List<Double>> bound = lists();
    private int engineLeftOut;
    private int boundLeftOut;

    private static List<List<Double>> lists() {
        List<List<Double>> lists = new ArrayList<>();
        for (int i = 0; i < STEPS.length; i++) {
            lists.add(new ArrayList<>());
        }
        return lists;
    }

    /** One engine commit: begun at {@code start}, refreshed (listener called) at {@code refreshed}. */
    void engineCommit(List<Event> events, long start, long refreshed) {
        List<Event> sorted = new ArrayList<>(events);
        sorted.sort(Comparator.comparingLong(Event::start));
        Event upsert = first(sorted, 0, e -> e.is(Kind.EXECUTE, "INSERT INTO projection_pending"));
        Event commit = upsert == null ? null : after(sorted, upsert, e -> e.is(Kind.COMMIT, null)
                && e.connection() == upsert.connection());
        Event claim = commit == null ? null : first(sorted, commit.end(), e -> e.is(Kind.EXECUTE, "WITH claim"));
        Event claimCommit = claim == null ? null : after(sorted, claim, e -> e.is(Kind.COMMIT, null)
                && e.connection() == claim.connection());
        Event refresh = claimCommit == null ? null
                : first(sorted, claimCommit.end(), e -> e.is(Kind.EXECUTE, "INSERT INTO order_search"));
        Event ack = refresh == null ? null : after(sorted, refresh, e -> e.is(Kind.EXECUTE, "DELETE FROM projection_pending")
                && e.connection() == refresh.connection());
        Event refreshCommit = ack == null ? null : after(sorted, ack, e -> e.is(Kind.COMMIT, null)
                && e.connection() == ack.connection());
        if (refreshCommit == null || refreshCommit.end() > refreshed) {
            engineLeftOut++;
            return;
        }
        // the claim's last statement before its commit: a due claim in the same transaction counts with it
        long claimEnd = claim.end();
        for (Event e : sorted) {
            if (e.kind() == Kind.EXECUTE && e.connection() == claim.connection() && e.start() >= claim.start()
                    && e.end() <= claimCommit.start()) {
                claimEnd = Math.max(claimEnd, e.end());
            }
        }
        long[] ends = {upsert.start(), upsert.end(), commit.end(), claim.start(), claimEnd, claimCommit.end(),
            refresh.start(), refresh.end(), ack.end(), refreshCommit.end(), refreshed};
        add(engine, start, ends);
    }

    /** One bound commit: begun at {@code start}, its refresh committed at {@code refreshed}. */
    void boundCommit(List<Event> events, long start, long refreshed) {
        List<Event> sorted = new ArrayList<>(events);
        sorted.sort(Comparator.comparingLong(Event::start));
        Event commit = first(sorted, 0, e -> e.is(Kind.COMMIT, null));
        Event refresh = commit == null ? null
                : first(sorted, commit.end(), e -> e.is(Kind.EXECUTE, "INSERT INTO order_search"));
        Event refreshCommit = refresh == null ? null : after(sorted, refresh, e -> e.is(Kind.COMMIT, null)
                && e.connection() == refresh.connection());
        if (refreshCommit == null) {
            boundLeftOut++;
            return;
        }
        long[] ends = {commit.start(), commit.start(), commit.end(), commit.end(), commit.end(), commit.end(),
            refresh.start(), refresh.end(), refresh.end(), refreshCommit.end(), refreshCommit.end()};
        add(bound, start, ends);
    }

    private static void add(List<List<Double>> steps, long start, long[] ends) {
        long previous = start;
        for (int i = 0; i < ends.length; i++) {
            steps.get(i).add((ends[i] - previous) / 1e6);
            previous = ends[i];
        }
    }

    private static Event first(List<Event> sorted, long notBefore, Predicate<Event> test) {
        for (Event e : sorted) {
            if (e.start() >= notBefore && test.test(e)) {
                return e;
            }
        }
        return null;
    }

    private static Event after(List<Event> sorted, Event previous, Predicate<Event> test) {
        return first(sorted, previous.end(), test);
    }

    /** Whether any commit was timed on both sides. */
    boolean measured() {
        return !engine.get(0).isEmpty() && !bound.get(0).isEmpty();
    }

    TextTable table() {
        TextTable table = new TextTable(1, "step, median ms", "engine", "bound", "engine − bound");
        double engineSum = 0;
        double boundSum = 0;
        for (int i = 0; i < STEPS.length; i++) {
            double ours = Series.quantile(engine.get(i), 0.5);
            double theirs = Series.quantile(bound.get(i), 0.5);
            engineSum += ours;
            boundSum += theirs;
            table.row(STEPS[i], format(ours), format(theirs), format(ours - theirs));
        }
        table.row("sum of the medians", format(engineSum), format(boundSum), format(engineSum - boundSum));
        return table;
    }

    String leftOut() {
        return String.format(Locale.ROOT, "%d engine and %d bound commits timed by step; left out (a step not found): "
                + "%d and %d", engine.get(0).size(), bound.get(0).size(), engineLeftOut, boundLeftOut);
    }

    private static String format(double ms) {
        return String.format(Locale.ROOT, "%.3f", ms);
    }
}
