package dev.projections.refresh;

import dev.projections.RefreshListener;
import dev.projections.MarkKey;
import dev.projections.TenantScope;
import dev.projections.config.Settings;
import dev.projections.store.ClaimedMark;
import dev.projections.store.ControlTable;
import dev.projections.store.PendingQueue;
import dev.projections.store.Tables;
import dev.projections.store.Suspension;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
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
    private final ControlTable control;
    private final LeasePolicy leases;
    private final ShortTransactions shortTransactions;
    private final RebuildStepper rebuilds;
    private final Claimer claimer;
    private final BatchRefresher refresher;
    private final InFlight inFlight = new InFlight();
    private final DueLook dueLook;
    private volatile boolean stopping;

    /**
     * {@code rebuilds} may be {@code null}: drainers then only refresh (tests of the refresh protocol). {@code stats}
     * counts what {@code listener} and {@code tenantScope} throw once a refresh's outcome is settled.
     */
    public RefreshEngine(Tables store, Transactions transactions, Clock clock, Settings settings, Handoff handoff,
                         ProjectionCatalog catalog, TenantScope tenantScope, RefreshListener listener,
                         EngineStats stats, RebuildStepper rebuilds) {
        this.queue = store.queue();
        this.control = store.control();
        this.clock = clock;
        this.settings = settings;
        this.handoff = handoff;
        this.dueLook = new DueLook(handoff::now);
        this.catalog = catalog;
        this.rebuilds = rebuilds;
        this.leases = new LeasePolicy(settings.leaseTime());
        this.shortTransactions = new ShortTransactions(transactions, leases);
        this.claimer = new Claimer(queue, store.claims(), shortTransactions, clock, settings);
        this.refresher = new BatchRefresher(queue, store.claims(), control, transactions, clock, settings, catalog, tenantScope, listener,
                stats, leases, inFlight, () -> stopping);
    }

    /**
     * One drainer's turn without a slot (tests, benchmarks): claim what the hand-off holds and due marks until a
     * claim finds none, the engine stops, or the turn is over; true when work may remain. Throws
     * {@link DatabaseTroubleException} when the database cannot be reached: the drainer ends and the sweep tries
     * again later.
     */
    public boolean drain() {
        return drain(() -> { }, null, true);
    }

    /**
     * A drainer's turn in {@code slot} (or, when {@code null}, taking straight from the hand-off without waiting).
     * It calls {@code backlogFound} once, the first time a claim comes back full: a backlog of at least a batch
     * waits, and the caller starts another drainer if a slot is free. That one does the same, so a sweep or a resume
     * that finds a backlog has every worker on it within a few batches, rather than one drainer alone until the
     * next sweep. With {@code lookFirst} its first claim looks for due marks whatever the last look found (a sweep
     * or an operation started it for them); a drainer started for handed keys collects first (docs/design.md D41).
     */
    public boolean drain(Runnable backlogFound, Handoff.Slot slot, boolean lookFirst) {
        inFlight.drainBegins();
        try {
            return drainUntilEmptyOrDue(backlogFound, slot, lookFirst);
        } finally {
            inFlight.drainEnds();
        }
    }

    /** Something may be due that nobody will hand over (a sweep or an operation says so): the next claim looks. */
    public void lookForDueMarks() {
        dueLook.lookAgain();
    }

    /**
     * A drainer works for at most {@link #DRAIN_TURN} and then ends, returning true when work may remain, so its
     * slot passes to a fresh drainer. At undeploy the container waits for running asynchronous invocations before
     * the engine hears that it stops: a drainer that drained until the queue was empty could hold an undeploy for
     * as long as a big rebuild takes.
     */
    private boolean drainUntilEmptyOrDue(Runnable backlogFound, Handoff.Slot slot, boolean lookFirst) {
        long turnEnds = System.nanoTime() + DRAIN_TURN.toNanos();
        boolean helpAsked = false;
        boolean mustLook = lookFirst;
        // a drainer with nothing else to do collects: it waits for a burst's companions, and idle for a while
        boolean collect = !lookFirst;
        while (!stopping) {
            if (System.nanoTime() > turnEnds) {
                return true;
            }
            if (rebuilds != null && rebuilds.purgeRequested()) {
                // a run was cancelled here: its rebuild marks go before the drainers spend refreshes on them
                rebuilds.purgeCancelled();
            }
            List<MarkKey> handed = slot == null ? handoff.take(settings.batchSize())
                    : slot.nextKeys(settings.batchSize(), collect && !mustLook);
            boolean asked = slot != null && slot.dueLookAsked(); // read (and so cleared) on every pass
            boolean lookAtRebuilds = rebuilds != null && rebuilds.mayHaveWork();
            // due marks too whenever one may wait (DueLook): under steady commits retries, re-marks and other
            // instances' orphans would otherwise wait until the hand-off runs dry; a rebuild's come only this way
            boolean lookAtDue = mustLook || asked || lookAtRebuilds || dueLook.wanted();
            mustLook = false;
            List<ClaimedMark> claimed = claimer.claimHandedAndDue(handed, catalog.claimable(), settings.batchSize(),
                    lookAtDue ? dueLook : null);
            // a rebuild steps when nothing is due, or when its marks are running out (a short claim holding rebuild
            // marks): the next page is marked while the last of the previous one is refreshed, and the queue holds
            // about one page of a run at a time. Live marks still come first in every claim (priority). Plain live
            // traffic, short claims without rebuild marks, costs no step query.
            // no rebuild statement at all while no run has work: the last look found none and nothing said otherwise
            if (rebuilds != null && claimed.stream().anyMatch(mark -> mark.priority() == PendingQueue.REBUILD)) {
                rebuilds.runsMayExist(); // another instance's run, whose marks came here
            }
            boolean stepped = lookAtRebuilds && rebuildRunningDry(claimed) && rebuilds.step();
            if (claimed.isEmpty()) {
                if (stepped) {
                    mustLook = true; // the page just marked is due
                    continue;
                }
                if (!handed.isEmpty()) {
                    continue; // handed keys another claim holds, or of a paused projection: on to the next pass
                }
                if (!collect && slot != null) {
                    collect = true; // a backlog ran out: stay a while for the next commit before ending
                    continue;
                }
                if (!lookAtDue) {
                    // never end without a look: a handed key the claim by key skipped (its row locked a moment, as
                    // InnoDB's locks can) is found only so, and a committed key must not wait for the sweep
                    mustLook = true;
                    continue;
                }
                if (lookAtRebuilds) {
                    rebuilds.finishExhausted();
                    rebuilds.lookForRuns();
                }
                return false;
            }
            if (!helpAsked && claimed.size() >= settings.batchSize()) {
                helpAsked = true;
                backlogFound.run();
            }
            collect = claimed.size() < settings.batchSize();
            ClaimedBatch batch = new ClaimedBatch(claimed);
            inFlight.batchBegins(claimed.size());
            try {
                refresher.process(batch, () -> System.nanoTime() > turnEnds);
            } finally {
                inFlight.batchEnds(claimed.size());
            }
            if (!batch.allRefreshedAsClaimed()) {
                dueLook.lookAgain(); // given back, re-marked or failed: due again now or after a backoff
            }
            if (batch.isPressed()) {
                // no connection or thread to be had: claiming more would only wait for them too; no drainer starts
                // for a retry delay, when the marks given back are due again
                handoff.pressedFor(settings.retryDelay());
                return false;
            }
        }
        return false;
    }

    private boolean rebuildRunningDry(List<ClaimedMark> claimed) {
        return claimed.isEmpty() || claimed.size() < settings.batchSize()
                && claimed.stream().anyMatch(mark -> mark.priority() == PendingQueue.REBUILD);
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
        Duration wait = settings.leaseTime().compareTo(Duration.ofSeconds(10)) < 0
                ? settings.leaseTime() : Duration.ofSeconds(10);
        int left = inFlight.awaitIdle(wait);
        if (left > 0) {
            LOG.log(Level.WARNING, "{0} refreshes still running at shutdown; their leases will expire", left);
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

    /**
     * The sweep's probes (docs/contract.md §6): for each suspended projection this instance deploys whose turn it
     * takes (one instance per {@code probe-interval}), one due mark is refreshed despite the suspension; when it
     * succeeds the suspension is lifted on every instance. With nothing due there is nothing to learn from: it
     * stays. Returns those lifted.
     */
    public List<String> probeSuspended() {
        List<String> lifted = new java.util.ArrayList<>();
        java.util.Map<String, Suspension> suspended = shortTransactions.run("read suspensions",
                control::suspensions);
        for (String projection : suspended.keySet()) {
            if (!catalog.names().contains(projection) || stopping()) {
                continue;
            }
            // what this instance saw before or during the suspension must not trip it again once it is lifted
            refresher.forgetFailures(projection);
            Instant now = clock.instant();
            String token = java.util.UUID.randomUUID().toString();
            // the turn and the claim in one transaction: an operator's pause committed meanwhile gets no probe
            ClaimedMark probe = shortTransactions.run("claim a probe",
                    c -> control.takeProbeTurn(c, projection, now, settings.probeInterval())
                            ? queue.claimProbe(c, projection, now, settings.leaseTime(), token) : null);
            if (probe == null || !refresher.probe(probe)) {
                continue;
            }
            if (shortTransactions.run("lift a suspension",
                    c -> control.liftSuspension(c, projection))) {
                LOG.info("projection " + projection + " resumed on every instance: a probe refresh of " + probe.key()
                        + " succeeded");
                lifted.add(projection);
            }
        }
        return lifted;
    }

    /** The sweep's question: is anything due that this instance may claim? */
    public boolean hasDueWork() {
        return shortTransactions.run("due check",
                connection -> queue.hasDue(connection, catalog.claimable(), clock.instant()));
    }
}
