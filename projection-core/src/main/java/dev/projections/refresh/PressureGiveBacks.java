package dev.projections.refresh;

import dev.projections.MarkKey;
import dev.projections.RefreshOutcome;
import dev.projections.config.Settings;
import dev.projections.store.ClaimedMark;
import dev.projections.store.HeldClaims;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Claims given back under back-pressure (docs/contract.md §4: no pooled connection or thread in time), without an
 * attempt: the server is short of something every refresh needs, so the rest of the batch would only wait for it too.
 * Each key's consecutive give-backs on this instance back off like failures; a key given back
 * {@value #MAX_GIVE_BACKS} times in a row is recorded as failed instead, so a fault that only looks like
 * back-pressure still reaches the failing list, parking and suspension.
 */
final class PressureGiveBacks {

    private static final Logger LOG = Logger.getLogger(PressureGiveBacks.class.getName());

    /** Consecutive back-pressure give-backs of a key on this instance before it counts as failed. */
    static final int MAX_GIVE_BACKS = 10;

    private final HeldClaims claims;
    private final ShortTransactions shortTransactions;
    private final Clock clock;
    private final Settings settings;
    private final FailureRecorder failures;
    private final SuspensionGuard guard;
    private final ApplicationCallbacks callbacks;
    private final Map<MarkKey, Integer> pressedTimes = new ConcurrentHashMap<>();

    PressureGiveBacks(HeldClaims claims, ShortTransactions shortTransactions, Clock clock, Settings settings,
                      FailureRecorder failures, SuspensionGuard guard, ApplicationCallbacks callbacks) {
        this.claims = claims;
        this.shortTransactions = shortTransactions;
        this.clock = clock;
        this.settings = settings;
        this.failures = failures;
        this.guard = guard;
        this.callbacks = callbacks;
    }

    /**
     * Whether a key of {@code marks} met back-pressure half the limit of times: its group then goes one by one, so
     * the key that meets it is found and counted alone, and its neighbours are not held (nor, at the limit, counted
     * as failed).
     */
    boolean pressedOften(List<ClaimedMark> marks) {
        return marks.stream().anyMatch(mark -> pressedTimes.getOrDefault(mark.key(), 0) >= MAX_GIVE_BACKS / 2);
    }

    /** {@code key} ended (refreshed, or failed for a reason of its own): its give-backs start again from none. */
    void ended(MarkKey key) {
        pressedTimes.remove(key);
    }

    /** Back-pressure met by {@code marks}: given back, and nothing more of the batch is started. */
    void pressed(ClaimedBatch batch, List<ClaimedMark> marks, Throwable cause) {
        // one key that met it half the limit of times in a row is more likely its own fault (a listed type, a dead
        // executor of its own) than the pool's: the batch goes on with the others
        boolean keysOwn = marks.size() == 1 && pressedTimes.getOrDefault(marks.get(0).key(), 0) >= MAX_GIVE_BACKS / 2;
        if (!keysOwn) {
            batch.pressed();
        }
        LOG.log(Level.WARNING, "PRJ101: refresh of {0} mark(s) of {1} met back-pressure (no connection or thread in time); "
                + "given back without an attempt, the drainer stops for now: {2}",
                new Object[] {marks.size(), marks.get(0).key().projection(), FailureText.of(cause)});
        giveBackUntried(batch, marks, cause);
    }

    /** Runs a write on claims under back-pressure; when it gets no connection either, the claims lapse: false. */
    static boolean underPressure(String what, Runnable action, int marks) {
        try {
            action.run();
            return true;
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "PRJ102: could not {0} {1} claim(s) under back-pressure; they are due again when their "
                    + "lease ends: {2}", new Object[] {what, marks, FailureText.of(e)});
            return false;
        }
    }

    /**
     * Gives back claims without an attempt, one key at a time in key order; a key whose claim is no longer mine is
     * marked again. When the give-back itself gets no connection, the claims are left to lapse: due again at the end
     * of their lease, attempts unchanged.
     */
    private void giveBackUntried(ClaimedBatch batch, List<ClaimedMark> marks, Throwable cause) {
        if (marks.isEmpty()) {
            return;
        }
        if (pressedTimes.size() > 100_000) {
            pressedTimes.clear(); // a bound, not a cache: forgetting only delays counting a key as failed
        }
        List<ClaimedMark> inKeyOrder = new ArrayList<>(marks);
        inKeyOrder.sort(Comparator.comparing(ClaimedMark::key));
        List<ClaimedMark> counted = new ArrayList<>();
        try {
            shortTransactions.run("give back", connection -> {
                Instant now = clock.instant();
                for (ClaimedMark mark : inKeyOrder) {
                    int times = pressedTimes.getOrDefault(mark.key(), 0) + 1;
                    if (times >= MAX_GIVE_BACKS) {
                        counted.add(mark);
                    } else {
                        claims.giveBackUntried(connection, mark, now, now.plus(Backoff.of(settings.of(mark.key().projection())).delayAfter(times)));
                    }
                }
                return null;
            });
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "PRJ103: could not give back {0} claim(s) under back-pressure; they are due again when "
                    + "their lease ends: {1}", new Object[] {marks.size(), FailureText.of(e)});
            return;
        }
        // counted once the give-back committed
        for (ClaimedMark mark : inKeyOrder) {
            if (!counted.contains(mark)) {
                pressedTimes.merge(mark.key(), 1, Integer::sum);
            }
        }
        for (ClaimedMark mark : counted) {
            countAsFailed(batch, mark, cause);
        }
    }

    /** The limit reached: a failure like any other from here, feeding the suspension window and the meters. */
    private void countAsFailed(ClaimedBatch batch, ClaimedMark mark, Throwable cause) {
        Throwable failure = new IllegalStateException("back-pressure " + MAX_GIVE_BACKS
                + " times in a row, counted as a failure: " + FailureText.of(rootOf(cause)), cause);
        if (!underPressure("record the failure of", () -> failures.record(mark, failure), 1)) {
            return; // counted again when the lease lapses and it meets the pressure once more
        }
        pressedTimes.remove(mark.key());
        if (guard.failed(mark.key(), FailureText.of(failure))) {
            batch.suspended(mark.key().projection());
        }
        callbacks.refreshed(mark.key(), RefreshOutcome.FAILED, Duration.ZERO);
    }

    private static Throwable rootOf(Throwable failure) {
        Throwable root = failure;
        for (int depth = 0; root.getCause() != null && root.getCause() != root && depth < 64; depth++) {
            root = root.getCause();
        }
        return root;
    }
}
