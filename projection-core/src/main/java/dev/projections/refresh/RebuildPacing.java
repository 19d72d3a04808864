package dev.projections.refresh;

import dev.projections.config.Settings;
import dev.projections.store.ClaimedMark;
import dev.projections.store.PendingQueue;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * When a drainer's turn steps a rebuild run of its projection (docs/design.md D40, docs/contract.md §7): when its
 * claim runs dry; when half a page of what this instance marked is left unclaimed, so the next page is marked while
 * the other drainers refresh the rest; every {@link #STEP_TRY_INTERVAL} under steady live traffic, where no claim runs
 * dry; and one turn in {@value #REBUILD_SHARE} beside a live backlog (the rebuild share). Per projection, on this
 * instance; thread-safe, as the drainers call it at once.
 */
final class RebuildPacing {

    /**
     * One claim in {@value #REBUILD_SHARE} of a projection whose claims come back full of live marks alone (a live
     * backlog) while a run may have work is the run's: it claims its handed keys and a batch of rebuild marks instead
     * of due live marks, so the run progresses by at least a batch (or takes a step) every {@value #REBUILD_SHARE}
     * turns of its projection on each instance, and the live backlog keeps the other turns (docs/contract.md §7).
     */
    static final int REBUILD_SHARE = 4;

    /** How often a short claim without rebuild marks tries a step of its projection's run. */
    static final Duration STEP_TRY_INTERVAL = Duration.ofMillis(200);

    private final RebuildStepper rebuilds;
    private final Handoff handoff;
    private final Settings settings;

    /* per projection, its claims in a row that came back full of live marks alone */
    private final Map<String, AtomicInteger> liveBacklogClaims = new ConcurrentHashMap<>();

    /* the projections whose rebuild marks this instance claimed, or whose run it stepped, since it last found none */
    private final Set<String> runSeen = ConcurrentHashMap.newKeySet();

    /*
     * per projection, the rebuild marks this instance's steps marked (a page each, at most) less those it claimed
     * since: about what is left queued of the run's pages here
     */
    private final Map<String, AtomicLong> unclaimedMarked = new ConcurrentHashMap<>();

    /* per projection, when a short claim without rebuild marks last tried a step, in the hand-off's time */
    private final Map<String, Long> stepTries = new ConcurrentHashMap<>();

    RebuildPacing(RebuildStepper rebuilds, Handoff handoff, Settings settings) {
        this.rebuilds = rebuilds;
        this.handoff = handoff;
        this.settings = settings;
    }

    /** Whether this turn of {@code projection} is the run's share; one drainer takes it. */
    boolean shareDue(String projection) {
        AtomicInteger inRow = liveBacklogClaims.get(projection);
        if (inRow == null) {
            return false;
        }
        int seen = inRow.get();
        return seen >= REBUILD_SHARE - 1 && inRow.compareAndSet(seen, 0);
    }

    /** A claim that was not a share: counts the claims in a row full of live marks alone. */
    void liveClaimed(String projection, List<ClaimedMark> claimed, int batchSize) {
        boolean liveOnlyAndFull = claimed.size() >= batchSize
                && claimed.stream().allMatch(mark -> mark.priority() != PendingQueue.REBUILD);
        AtomicInteger inRow = liveBacklogClaims.computeIfAbsent(projection, name -> new AtomicInteger());
        if (liveOnlyAndFull) {
            inRow.incrementAndGet();
        } else {
            inRow.set(0);
        }
    }

    /** A claim came with rebuild marks: a run exists, perhaps another instance's, whose marks came here. */
    void rebuildMarksClaimed(String projection) {
        rebuilds.runsMayExist();
        runSeen.add(projection);
    }

    /**
     * A share turn found no rebuild mark to claim and nothing to mark: the run it served has ended on this instance's
     * side (its last marks refreshed), so it is finished now, since under a live backlog no drainer ends to do it (the
     * sweep would, at its next run); a projection without a run of its own (another projection's run made the share
     * due) waits eight times as long for its next share.
     */
    void shareFoundNothing(String projection) {
        if (runSeen.remove(projection)) {
            rebuilds.finishExhausted();
        } else {
            liveBacklogClaims.get(projection).set(-8 * REBUILD_SHARE);
        }
    }

    /**
     * After a refreshed claim that did not run dry: steps {@code projection}'s run when a short claim may try (steady
     * live traffic: no claim runs dry) or when half a page of what this instance marked is left.
     */
    void afterRefresh(String projection, int claimed, int batchSize, long rebuildMarks) {
        if (claimed < batchSize && stepTryDue(projection)) {
            step(projection);
        } else if (halfPageLeft(projection, rebuildMarks)) {
            // the next page marked while the other drainers refresh the rest of this one
            if (!rebuilds.step(Set.of(projection))) {
                unclaimed(projection).updateAndGet(left -> Math.max(0, left - pageSize(projection)));
            } else {
                handoff.askForDueLook(Set.of(projection));
            }
        }
    }

    /** Steps a run of {@code projection}; whether it marked anything. */
    boolean step(String projection) {
        boolean stepped = rebuilds.step(Set.of(projection));
        if (stepped) {
            runSeen.add(projection);
            unclaimed(projection).addAndGet(pageSize(projection));
            handoff.askForDueLook(Set.of(projection)); // the page just marked is due
        }
        return stepped;
    }

    private AtomicLong unclaimed(String projection) {
        return unclaimedMarked.computeIfAbsent(projection, name -> new AtomicLong());
    }

    private long pageSize(String projection) {
        return Math.max(1, settings.of(projection).rebuildPageSize());
    }

    /**
     * Counts a claim's {@code rebuildMarks} off what this instance marked, and whether the next page should be marked
     * now: what is left is down to half a page. The page is then counted at once, so one drainer steps, and the queue
     * holds between half a page and a page and a half of the run per instance (docs/design.md D40): a step waiting
     * for the page to run dry left every other drainer idle while one marked.
     */
    private boolean halfPageLeft(String projection, long rebuildMarks) {
        if (rebuildMarks == 0) {
            return false;
        }
        long page = pageSize(projection);
        AtomicLong unclaimed = unclaimed(projection);
        long left = unclaimed.updateAndGet(marked -> Math.max(0, marked - rebuildMarks));
        return left <= page / 2 && unclaimed.compareAndSet(left, left + page);
    }

    private boolean stepTryDue(String projection) {
        long now = handoff.now();
        Long last = stepTries.get(projection);
        if (last != null && now - last < STEP_TRY_INTERVAL.toNanos()) {
            return false;
        }
        stepTries.put(projection, now);
        return true;
    }
}
