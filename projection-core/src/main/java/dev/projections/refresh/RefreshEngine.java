package dev.projections.refresh;

import dev.projections.TenantScope;
import dev.projections.config.Settings;
import dev.projections.store.ClaimedMark;
import dev.projections.store.PendingChecks;
import dev.projections.store.PendingQueue;
import dev.projections.store.Tables;
import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Claim → refresh → ack (docs/contract.md §4), as plain Java: the EE layer supplies transactions, the projections and the
 * tenant scope, and calls {@link #drain} from its asynchronous drainers. The parts: {@link Claimer} takes marks,
 * {@link BatchRefresher} refreshes and acks them, {@link InFlight} counts what {@link #stop} waits for.
 */
public final class RefreshEngine {

    private static final Logger LOG = Logger.getLogger(RefreshEngine.class.getName());

    /** How long one drainer invocation works before it hands its slot to a fresh one. */
    static final Duration DRAIN_TURN = Duration.ofSeconds(5);

    private final Clock clock;
    private final Settings settings;
    private final Handoff handoff;
    private final ProjectionCatalog catalog;
    private final PendingQueue queue;
    private final PendingChecks checks;
    private final SuspensionProbes probes;
    private final OneTransactionTurns oneTransaction;
    private final LeasePolicy leases;
    private final ShortTransactions shortTransactions;
    private final RebuildStepper rebuilds;
    private final Claimer claimer;
    private final BatchRefresher refresher;
    private final RebuildPacing pacing;
    private final InFlight inFlight = new InFlight();
    /** Each projection's: whether its next claim looks for due marks too. */
    private final Map<String, DueLook> dueLooks = new ConcurrentHashMap<>();
    private volatile boolean stopping;
    private final LifecycleAnnouncer lifecycle;
    private final WakeUpSignals signals;

    /**
     * {@code rebuilds} may be {@code null}: drainers then only refresh (tests of the refresh protocol). The observers'
     * counters count what their listener and {@code tenantScope} throw once a refresh's outcome is settled.
     */
    public RefreshEngine(Tables store, Transactions transactions, Clock clock, Settings settings, Handoff handoff,
                         ProjectionCatalog catalog, TenantScope tenantScope, RefreshObservers observers,
                         RebuildStepper rebuilds) {
        this.lifecycle = observers.lifecycle();
        this.signals = observers.signals();
        this.queue = store.queue();
        this.checks = store.checks();
        this.clock = clock;
        this.settings = settings;
        this.handoff = handoff;
        this.catalog = catalog;
        this.rebuilds = rebuilds;
        this.leases = new LeasePolicy(settings.leaseTime(), projection -> settings.of(projection).leaseTime());
        this.shortTransactions = new ShortTransactions(transactions, leases);
        this.claimer = new Claimer(queue, store.claims(), shortTransactions, clock, settings, leases);
        this.pacing = new RebuildPacing(rebuilds, handoff, settings); // without rebuilds: counts claims only
        this.refresher = new BatchRefresher(store, transactions, clock, settings, catalog,
                tenantScope, observers, leases, inFlight, () -> stopping);
        this.oneTransaction = new OneTransactionTurns(claimer, refresher, inFlight, pacing, handoff);
        // a commit that marks two projections: their lone keys in one transaction where both go that way (D60)
        // (not while a rebuild may have work: its turns look at due marks, as lone keys' do not)
        handoff.pairLoneKeys(projection -> settings.of(projection).batchSize() > 1
                && (rebuilds == null || !rebuilds.mayHaveWork()) && refresher.oneTransaction().pairs(projection));
        this.probes = new SuspensionProbes(store, shortTransactions, clock, settings, catalog, leases, refresher,
                lifecycle, () -> stopping);
    }

    /**
     * One drainer's work without a slot (tests, benchmarks): every claimable projection owes a look, and turns are
     * taken until none is left (handed keys and due marks, until each projection's claim finds none), the engine
     * stops, or the drainer's time is over; true when work may remain. Throws {@link DatabaseTroubleException} when
     * the database cannot be reached: the drainer ends and the sweep tries again later.
     */
    public boolean drain() {
        return drain(projection -> { }, helper -> { }, null, true);
    }

    /**
     * A drainer's work in {@code slot} (or, when {@code null}, taking turns straight from the hand-off without
     * waiting). It calls {@code backlogFound} with a projection the first time a claim of it comes back full: a
     * backlog of at least a batch waits, and the caller starts another drainer if a slot is free. That one does the
     * same, so a sweep or a resume that finds a backlog has the drainers the projection may have on it within a few
     * batches. {@code helpers} starts the drainer of a slot a turn reserved for another projection's keys. With
     * {@code lookFirst} it takes what it can serve at once (a sweep or an operation started it for due marks); a
     * drainer started for handed keys collects first (docs/design.md D41).
     */
    public boolean drain(Consumer<String> backlogFound, Consumer<Slot> helpers, Slot slot,
                         boolean lookFirst) {
        inFlight.drainBegins();
        try {
            return drainUntilEmptyOrDue(backlogFound, helpers, slot, lookFirst);
        } finally {
            inFlight.drainEnds();
        }
    }

    /**
     * Something may be due in {@code projections} that nobody will hand over (a sweep or an operation says so): the
     * next claim of each looks.
     */
    public void lookForDueMarks(Collection<String> projections) {
        projections.forEach(projection -> dueLook(projection).lookAgain());
    }

    private DueLook dueLook(String projection) {
        return dueLooks.computeIfAbsent(projection, p -> new DueLook(handoff::now));
    }

    /**
     * A drainer works for at most {@link #DRAIN_TURN} and then ends, returning true when work may remain, so its
     * slot passes to a fresh drainer. At undeploy the container waits for running asynchronous invocations before
     * the engine hears that it stops: a drainer that drained until the queue was empty could hold an undeploy for
     * as long as a big rebuild takes. Each pass is one projection's {@link Turn turn} (docs/design.md D45).
     */
    private boolean drainUntilEmptyOrDue(Consumer<String> backlogFound, Consumer<Slot> helpers,
                                         Slot slot, boolean lookFirst) {
        long turnEnds = System.nanoTime() + DRAIN_TURN.toNanos();
        if (slot == null && lookFirst) {
            handoff.askForDueLook(catalog.claimable()); // a drainer without a slot looks at every projection
        }
        Set<String> helpAsked = new HashSet<>();
        // projections served by key only, or whose refreshes gave marks back: looked at before the drainer ends
        Set<String> lookBeforeEnding = new LinkedHashSet<>();
        // a drainer with nothing else to do collects: it waits for a burst's companions, and idle for a while
        boolean collect = !lookFirst;
        while (!stopping) {
            if (System.nanoTime() > turnEnds) {
                handoff.askForDueLook(lookBeforeEnding); // the successor makes the looks this drainer owed
                return true;
            }
            if (rebuilds != null && rebuilds.purgeRequested()) {
                // a run was cancelled here: its rebuild marks go before the drainers spend refreshes on them. The
                // purge may take seconds: a drainer not yet at its first turn is busy from here, so commits meanwhile
                // start another rather than wait for it
                if (slot != null) {
                    slot.busy();
                }
                rebuilds.purgeCancelled();
            }
            Set<String> claimable = catalog.claimable();
            Turn turn = slot == null ? handoff.takeTurn(claimable) : slot.nextTurn(collect, claimable);
            if (turn == null) {
                if (!collect && slot != null) {
                    collect = true; // a backlog ran out: stay a while for the next commit before ending
                    continue;
                }
                if (!lookBeforeEnding.isEmpty()) {
                    // never end without a look: a handed key the claim by key skipped (its row locked a moment, as
                    // InnoDB's locks can) is found only so, and a committed key must not wait for the sweep
                    handoff.askForDueLook(lookBeforeEnding);
                    lookBeforeEnding.clear();
                    collect = false;
                    continue;
                }
                if (slot != null && handoff.anyWaiting(catalog.claimable())) {
                    collect = false; // a projection resumed while this drainer collected with an older view
                    continue;
                }
                if (rebuilds != null && rebuilds.mayHaveWork()) {
                    rebuilds.finishExhausted();
                    rebuilds.lookForRuns();
                }
                return false;
            }
            Claim claim;
            try {
                if (turn.helper() != null) {
                    helpers.accept(turn.helper()); // inside: whatever it throws, the turn ends
                }
                // a full claim has found a backlog: help is asked before the refresh, which may take long
                Consumer<String> backlog = projection -> {
                    if (helpAsked.add(projection)) {
                        backlogFound.accept(projection);
                    }
                };
                claim = turn.companion() == null ? take(turn, true, turnEnds, lookBeforeEnding, backlog)
                        : takeTogether(turn, turnEnds, lookBeforeEnding, backlog, helpers);
            } finally {
                turn.end();
            }
            if (claim == Claim.PRESSED) {
                return false;
            }
            if (claim != Claim.EMPTY && signals != null) {
                signals.refreshesCommitted(shortTransactions); // docs/design.md D55
            }
            // after a short claim, collect: wait for companions; after a full one, go on at once
            collect = claim == Claim.EMPTY ? collect : claim == Claim.SHORT;
        }
        return false;
    }

    /**
     * A turn with its {@link Turn#companion}: the two lone keys, of one commit, in one transaction (D60); what that
     * leaves of the turn's own key goes as its turn here (the companion's is handed back to the hand-off).
     */
    private Claim takeTogether(Turn turn, long turnEnds, Set<String> lookBeforeEnding, Consumer<String> backlogFound,
                               Consumer<Slot> helpers) {
        OneTransactionTurns.Lone together = oneTransaction.takePair(turn, this::dueLook,
                projection -> settings.of(projection).batchSize(), lookBeforeEnding, helpers);
        if (together.ownWay().isEmpty()) {
            return together.claim();
        }
        // rolled back whole, the marks as they were: claimed the ordinary way, as a lone key's after a rollback
        Claim its = take(turn, !together.rolledBack(), turnEnds, lookBeforeEnding, backlogFound);
        return its != Claim.EMPTY ? its : together.claim();
    }

    /**
     * One turn: claims the turn's keys, and due marks of its projection when a look is owed or wanted, refreshes and
     * acks them. While a run may have work, a rebuild of the projection steps when its claim runs dry (D40): empty, or
     * short with rebuild marks in it, so the next page is marked while the last of the previous one is refreshed and
     * the queue holds about one page of a run at a time. Under steady live traffic every claim holds a live key or
     * two and none runs dry, and a run waiting for that never took its first step (engine review E4): a short claim
     * without rebuild marks steps too, at most every {@link RebuildPacing#STEP_TRY_INTERVAL} per projection (a projection without
     * a run pays one lease query that often while another's run is active), after its live marks were refreshed. Live
     * marks still come first in every claim (priority). No rebuild statement runs at all while no run has work.
     * With {@code inOneMayBeTried} false its lone key goes the ordinary way (it was rolled back in one transaction).
     */
    private Claim take(Turn turn, boolean inOneMayBeTried, long turnEnds, Set<String> lookBeforeEnding,
                       Consumer<String> backlog) {
        String projection = turn.projection();
        Runnable backlogFound = () -> backlog.accept(projection);
        int batchSize = settings.of(projection).batchSize();
        DueLook look = dueLook(projection);
        boolean lookAtRebuilds = rebuilds != null && rebuilds.mayHaveWork();
        // due marks too whenever one may wait (DueLook): under steady commits retries, re-marks and other instances'
        // orphans would otherwise wait until the hand-off runs dry; a rebuild's come only this way
        boolean lookAtDue = turn.lookOwed() || lookAtRebuilds || look.wanted();
        boolean rebuildShare = lookAtRebuilds && pacing.shareDue(projection);
        boolean inOneTried = inOneMayBeTried && !turn.lookOwed() && !lookAtRebuilds && turn.keys().size() == 1
                && batchSize > 1 && refresher.oneTransaction().applies(projection);
        if (inOneTried) {
            OneTransactionTurns.Lone inOne = oneTransaction.take(turn.keys(), p -> look, p -> lookAtDue,
                    p -> batchSize, lookBeforeEnding);
            if (inOne.ownWay().isEmpty()) {
                return inOne.claim();
            }
            // rolled back, the mark as it was: claimed the ordinary way, where a failure is recorded and backs off
        }
        // a rebuild's batch may go in one transaction (D59): a turn without handed keys (they are live), that looks
        ClaimedBatch inOne = inOneTried || !turn.keys().isEmpty() ? null
                : oneTransaction.batch(projection, turn.keys(), batchSize, look, lookAtDue, rebuildShare,
                        lookBeforeEnding);
        List<ClaimedMark> claimed;
        if (inOne != null) {
            claimed = inOne.marks();
        } else if (rebuildShare) {
            // the run's turn beside a live backlog: its handed keys and a batch of its rebuild marks, no live due marks
            claimed = claimer.claimRebuildShare(projection, turn.keys(), batchSize);
        } else {
            claimed = claimer.claimTurn(projection, turn.keys(), batchSize, lookAtDue ? look : null);
        }
        if (!rebuildShare) {
            pacing.liveClaimed(projection, claimed, batchSize);
        }
        // the last statement a drainer sends for a projection before it ends is a look that found nothing due
        if (rebuildShare) {
            lookBeforeEnding.add(projection); // not a look at the live marks
        } else if (claimed.isEmpty() && lookAtDue) {
            lookBeforeEnding.remove(projection);
        } else {
            lookBeforeEnding.add(projection);
        }
        long rebuildMarks = claimed.stream().filter(mark -> mark.priority() == PendingQueue.REBUILD).count();
        if (rebuilds != null && rebuildMarks > 0) {
            pacing.rebuildMarksClaimed(projection);
        }
        boolean runningDry = claimed.isEmpty() || claimed.size() < batchSize && rebuildMarks > 0;
        if (lookAtRebuilds && runningDry) {
            boolean stepped = pacing.step(projection);
            if (rebuildShare && !stepped && rebuildMarks == 0) {
                pacing.shareFoundNothing(projection);
            }
        }
        if (claimed.isEmpty()) {
            return Claim.EMPTY;
        }
        if (claimed.size() >= batchSize) {
            handoff.askForDueLook(Set.of(projection)); // a backlog: its next turn looks again
            backlogFound.run();
        }
        ClaimedBatch batch = inOne != null ? inOne : new ClaimedBatch(claimed);
        if (inOne == null) {
            inFlight.batchBegins(claimed.size());
            try {
                refresher.process(batch, () -> System.nanoTime() > turnEnds);
            } finally {
                inFlight.batchEnds(claimed.size());
            }
        }
        if (!batch.allRefreshedAsClaimed()) {
            look.lookAgain(); // given back, re-marked or failed: due again now or after a backoff
            lookBeforeEnding.add(projection);
        }
        if (lookAtRebuilds && !runningDry) {
            pacing.afterRefresh(projection, claimed.size(), batchSize, rebuildMarks);
        }
        if (batch.isPressed()) {
            // no connection or thread to be had: claiming more would only wait for them too; no drainer starts
            // for a retry delay, when the marks given back are due again
            handoff.pressedFor(settings.retryDelay());
            return Claim.PRESSED;
        }
        return claimed.size() >= batchSize ? Claim.FULL : Claim.SHORT;
    }

    /** The engine one step at a time, for tests with {@code projection.auto-refresh=false}. */
    public EngineSteps steps() {
        return new EngineSteps(claimer, refresher, catalog, settings);
    }

    /**
     * Stops claiming, gives back every claim not yet started, and waits up to {@code min(lease-time, 10s)} for
     * started refreshes and for drainers to give back what they claimed meanwhile, so that nothing is lost and no
     * key waits a lease after a redeploy.
     */
    public void stop() {
        stopping = true;
        handoff.wakeAll(); // collecting drainers end now
        refresher.releaseUnstarted();
        Duration longest = settings.longestLeaseTime();
        Duration wait = longest.compareTo(Duration.ofSeconds(10)) < 0 ? longest : Duration.ofSeconds(10);
        int left = inFlight.awaitIdle(wait);
        if (left > 0) {
            LOG.log(Level.WARNING, "PRJ114: {0} refreshes still running at shutdown; their leases will expire", left);
        }
    }

    /** The most drainers seen draining at once, for tests of the hand-off's bound. */
    public int peakDraining() {
        return inFlight.peakDraining();
    }

    /** The marks this instance's drainers hold claimed in the batches they work on now. */
    public int claimsHeld() {
        return inFlight.claimsHeld();
    }

    public boolean stopping() {
        return stopping;
    }

    /** The sweep's probes of suspended projections ({@link SuspensionProbes}); returns those lifted. */
    public List<String> probeSuspended() {
        return probes.probeSuspended();
    }

    /** Every projection this instance deploys, paused or not (read from memory, never from the database). */
    public Set<String> deployed() {
        return catalog.names();
    }

    /** The projections this instance may claim marks of now. */
    public Set<String> claimable() {
        return catalog.claimable();
    }

    /**
     * The projections this instance may claim marks of, read afresh where its copy of the pauses calls one paused:
     * another instance may have resumed it a moment ago (its signal what asks). Nothing is read while none is paused.
     */
    public Set<String> claimableAfresh() {
        if (catalog.claimable().size() < catalog.names().size()) {
            catalog.claimableChanged();
        }
        return catalog.claimable();
    }

    /** The sweep's question: is anything due that this instance may claim? */
    public boolean hasDueWork() {
        return shortTransactions.run("due check",
                connection -> checks.hasDue(connection, catalog.claimable(), clock.instant()));
    }
}
