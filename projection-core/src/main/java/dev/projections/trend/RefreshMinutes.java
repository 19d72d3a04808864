package dev.projections.trend;

import dev.projections.MarkKey;
import dev.projections.RefreshListener;
import dev.projections.RefreshOutcome;
import dev.projections.refresh.RefreshLag;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Comparator;

/**
 * This instance's refreshes per projection and minute of the engine's clock: how many completed, how many failed, a
 * histogram of how long all of them took, and one of the lag of those that caught up with a live mark (first mark →
 * refresh commit, as {@code projection.lag} measures it). The sweep takes the minutes that ended; minutes nobody takes (the sweep
 * is off, the database away) are dropped after {@link #KEPT_MINUTES}, so memory stays bounded.
 */
public final class RefreshMinutes implements RefreshListener, RefreshLag {

    /** Less than the shortest trend retention: a minute kept this long is still written. */
    static final int KEPT_MINUTES = 30;

    /** One projection's minute. */
    public static final class Minute {
        private final String projection;
        private final Instant start;
        private long completed;
        private long failed;
        private final DurationHistogram durations = new DurationHistogram();
        private final DurationHistogram lags = new DurationHistogram();

        Minute(String projection, Instant start) {
            this.projection = projection;
            this.start = start;
        }

        public String projection() {
            return projection;
        }

        public Instant start() {
            return start;
        }

        public long completed() {
            return completed;
        }

        public long failed() {
            return failed;
        }

        /** The 99th percentile of every refresh's time in this minute, failed ones too; {@code null} without one. */
        public Long p99Micros() {
            return durations.p99Micros();
        }

        /** The lags of this minute's refreshes of live marks as a trend row's text, {@code null} without one. */
        public String lagText() {
            return lags.text();
        }
    }

    private record Key(String projection, Instant start) {
    }

    private final Clock clock;
    private final Map<Key, Minute> minutes = new HashMap<>();

    public RefreshMinutes(Clock clock) {
        this.clock = clock;
    }

    @Override
    public void refreshed(MarkKey key, RefreshOutcome outcome, Duration took) {
        synchronized (this) {
            Minute minute = current(key.projection());
            if (outcome == RefreshOutcome.FAILED) {
                minute.failed++;
            } else {
                minute.completed++;
            }
            minute.durations.record(took);
        }
    }

    /** A live mark's lag, told by the engine at the refresh's commit (before the listeners hear of the refresh). */
    @Override
    public void refreshed(MarkKey key, Instant firstMarkedAt, Instant committedAt) {
        Duration lag = Duration.between(firstMarkedAt, committedAt);
        synchronized (this) {
            current(key.projection()).lags.record(lag.isNegative() ? Duration.ZERO : lag);
        }
    }

    /** This minute's of {@code projection}; the caller holds the lock. */
    private Minute current(String projection) {
        // the clock is read under the lock: a minute the sweep took is never created again by a late refresh
        Instant start = clock.instant().truncatedTo(ChronoUnit.MINUTES);
        Key key = new Key(projection, start);
        Minute minute = minutes.get(key);
        if (minute == null) {
            minute = new Minute(projection, start);
            minutes.put(key, minute);
            if (minutes.size() > 1) {
                forgetBefore(start.minus(KEPT_MINUTES, ChronoUnit.MINUTES));
            }
        }
        return minute;
    }

    /** Removes and returns the minutes that ended before {@code now}'s minute, oldest first. */
    public synchronized List<Minute> takeEnded(Instant now) {
        Instant current = now.truncatedTo(ChronoUnit.MINUTES);
        List<Minute> ended = new ArrayList<>();
        for (Iterator<Minute> it = minutes.values().iterator(); it.hasNext(); ) {
            Minute minute = it.next();
            if (minute.start.isBefore(current)) {
                ended.add(minute);
                it.remove();
            }
        }
        ended.sort(Comparator.comparing(Minute::start).thenComparing(Minute::projection));
        return ended;
    }

    /** Removes and returns every minute, the current one too. */
    public synchronized List<Minute> takeAll() {
        return takeEnded(Instant.MAX);
    }

    /** Gives back minutes taken but not written (the database was away), adding to what came for them meanwhile. */
    public synchronized void giveBack(List<Minute> taken) {
        for (Minute minute : taken) {
            minutes.merge(new Key(minute.projection, minute.start), minute, (current, back) -> {
                current.completed += back.completed;
                current.failed += back.failed;
                current.durations.add(back.durations);
                current.lags.add(back.lags);
                return current;
            });
        }
    }

    private void forgetBefore(Instant oldest) {
        minutes.values().removeIf(minute -> minute.start.isBefore(oldest));
    }
}
