package dev.projections.refresh;

import dev.projections.spi.RefreshTracing;
import dev.projections.Projection;
import dev.projections.TenantScope;
import dev.projections.config.Settings;
import dev.projections.store.AckOutcome;
import dev.projections.store.ClaimedMark;
import dev.projections.store.HeldClaims;
import dev.projections.store.PendingChecks;
import dev.projections.store.PendingQueue;
import dev.projections.store.Tables;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Refreshes claimed marks (docs/contract.md §4 steps 2–6): one tenant's group of a projection at a time, through
 * {@code refreshAll} in one transaction with the acks; when that fails, each mark alone. A mark is only started
 * with enough lease left to finish, else given back unstarted; once started, it ends refreshed, recorded as
 * failed with backoff, or (at shutdown) released. A failed {@code refreshAll} that used up the lease does not
 * return its marks unrecorded: they get a fresh lease and go on one by one, so a slow or poison id backs off
 * alone and never holds its neighbours. Once a refresh committed, nothing that follows is its failure: the
 * application's listener and the close of its tenant scope run guarded ({@link ApplicationCallbacks}). How a failure
 * is recorded is {@link FailureRecorder}'s; what back-pressure gives back, {@link PressureGiveBacks}'.
 */
final class BatchRefresher {

    private static final Logger LOG = Logger.getLogger(BatchRefresher.class.getName());

    private final PendingQueue queue;
    private final PendingChecks checks;
    private final Transactions transactions;
    private final ShortTransactions shortTransactions;
    private final Clock clock;
    private final Settings settings;
    private final SuspensionGuard guard;
    private final ProjectionCatalog catalog;
    private final TenantScope tenantScope;
    private final ApplicationCallbacks callbacks;
    private final LeasePolicy leases;
    private final FailureRecorder failures;
    private final PressureGiveBacks giveBacks;
    private final InFlight inFlight;
    private final ClaimsInHand inHand;
    private final BooleanSupplier stopping;
    private final Set<ClaimedBatch> active = ConcurrentHashMap.newKeySet();
    private final LiveLag lag;
    private final RefreshTracing tracing;
    private final OneTransactionRefresh oneTransaction;
    private final RefreshEnds ends;
    private final RefreshCommits commits;

    BatchRefresher(Tables store, Transactions transactions, Clock clock, Settings settings, ProjectionCatalog catalog,
                   TenantScope tenantScope, RefreshObservers observers, LeasePolicy leases, InFlight inFlight,
                   BooleanSupplier stopping) {
        this.lag = new LiveLag(observers.lag());
        this.tracing = observers.tracing();
        this.queue = store.queue();
        this.checks = store.checks();
        HeldClaims claims = store.claims();
        this.transactions = transactions;
        this.shortTransactions = new ShortTransactions(transactions, leases);
        this.clock = clock;
        this.settings = settings;
        this.catalog = catalog;
        this.tenantScope = tenantScope;
        this.callbacks = new ApplicationCallbacks(observers.listener(), observers.stats(), clock);
        this.leases = leases;
        this.guard = new SuspensionGuard(store.control(), shortTransactions, clock, settings, observers.lifecycle());
        this.failures = new FailureRecorder(claims, shortTransactions, clock, settings, observers.lifecycle());
        this.giveBacks = new PressureGiveBacks(claims, shortTransactions, clock, settings, failures, guard, callbacks);
        this.inFlight = inFlight;
        this.stopping = stopping;
        this.inHand = new ClaimsInHand(claims, shortTransactions, clock, leases);
        RefreshTimes times = new RefreshTimes();
        this.commits = new RefreshCommits(settings, store.dialect());
        this.ends = new RefreshEnds(lag, guard, giveBacks, failures, callbacks, times);
        this.oneTransaction = new OneTransactionRefresh(queue, transactions, clock, settings, catalog, tenantScope,
                leases, tracing, store.dialect().refreshesInTheClaimTransaction(),
                store.dialect().refreshesInTheClaimTransactionByDefault(), callbacks, ends::succeeded, times, commits);
    }

    /** The refresh of a lone handed key in one transaction with its claim and ack (docs/design.md D53). */
    OneTransactionRefresh oneTransaction() {
        return oneTransaction;
    }

    /**
     * Refreshes a claimed batch, one tenant's group of a projection at a time; once {@code turnOver} says the
     * drainer's turn is over, a group refreshed one by one gives back what it has not started.
     */
    void process(ClaimedBatch batch, BooleanSupplier turnOver) {
        active.add(batch);
        try {
            for (List<ClaimedMark> group : batch.groups()) {
                if (stopping.getAsBoolean() || batch.isPressed()) {
                    return;
                }
                List<ClaimedMark> startable = new ArrayList<>();
                List<ClaimedMark> giveBack = new ArrayList<>();
                Set<String> claimable = catalog.claimable();
                Instant now = clock.instant();
                for (ClaimedMark mark : group) {
                    // paused meanwhile, or too little lease left to finish: given back unstarted (docs/contract.md §4 step 2)
                    boolean mayStart = claimable.contains(mark.key().projection()) && leases.leftToStart(mark, now)
                            && !batch.isSuspended(mark.key().projection());
                    if (mayStart && batch.start(mark)) {
                        startable.add(mark);
                    } else if (batch.toRelease(mark)) {
                        giveBack.add(mark);
                    }
                }
                release(giveBack);
                refreshGroup(startable, batch, turnOver);
            }
        } finally {
            try {
                if (batch.isPressed()) {
                    List<ClaimedMark> unstarted = batch.releaseUnstarted();
                    PressureGiveBacks.underPressure("give back", () -> release(unstarted), unstarted.size());
                } else {
                    release(batch.releaseUnstarted());
                }
            } finally {
                active.remove(batch);
            }
        }
    }

    /** At shutdown: gives back every claimed mark of the batches in progress that has not started. */
    void releaseUnstarted() {
        for (ClaimedBatch batch : active) {
            try {
                release(batch.releaseUnstarted());
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "PRJ104: could not release claims at shutdown; their leases will expire", e);
            }
        }
    }

    private void refreshGroup(List<ClaimedMark> claimOrder, ClaimedBatch batch, BooleanSupplier turnOver) {
        if (claimOrder.isEmpty()) {
            return;
        }
        List<ClaimedMark> marks = new ArrayList<>(claimOrder);
        marks.sort(Comparator.comparing(ClaimedMark::key));
        inFlight.refreshBegins();
        try {
            if (marks.size() == 1) {
                refreshOne(marks.get(0), batch);
            } else if (refreshTogether(marks, batch) == Ended.FAILED) {
                // one by one takes longer than the batch: the batch's other groups are given back now rather
                // than held, unstarted, until their lease lapses
                release(batch.releaseUnstarted());
                refreshOneByOne(marks, batch, turnOver);
            }
        } finally {
            inFlight.refreshEnds();
        }
    }

    /**
     * Each mark in its own transaction, after a failed {@code refreshAll} (docs/contract.md §4 step 3). The failed
     * batch may have used up the lease. Before a mark that could no longer finish inside its lease, the marks still
     * to go get a fresh lease — unless a mark already ended in this pass and one of them failed or the drainer's
     * turn is over: then the rest are given back, since what ended guarantees progress, and a slow group does not
     * hold its drainer for a lease per mark. Never are they all given back with nothing ended, which let the next
     * claim take the same batch for ever.
     */
    private void refreshOneByOne(List<ClaimedMark> marks, ClaimedBatch batch, BooleanSupplier turnOver) {
        Deque<ClaimedMark> toGo = new ArrayDeque<>(marks);
        boolean oneEnded = false;
        boolean oneFailed = false;
        while (!toGo.isEmpty()) {
            boolean leaseTooShort = !leases.leftToStart(toGo.peekFirst(), clock.instant());
            String projectionOfGroup = toGo.peekFirst().key().projection();
            if (stopping.getAsBoolean() || batch.isSuspended(projectionOfGroup)
                    || !catalog.claimable().contains(projectionOfGroup) // paused or suspended by another drainer

                    || leaseTooShort && oneEnded && (oneFailed || turnOver.getAsBoolean())) {
                inHand.abandon(new ArrayList<>(toGo));
                return;
            }
            if (leaseTooShort) {
                toGo = new ArrayDeque<>(inHand.renew(new ArrayList<>(toGo)));
                continue;
            }
            Ended ended = refreshOne(toGo.pollFirst(), batch);
            if (ended == Ended.GIVEN_BACK && !batch.isPressed()) {
                continue; // a key that meets it again and again: its own doing, the others go on
            }
            if (ended == Ended.GIVEN_BACK) {
                // the server is short of connections or threads: the rest would only wait for them too; given back
                // due as they were (no drainer starts for a retry delay anyway)
                List<ClaimedMark> rest = new ArrayList<>(toGo);
                PressureGiveBacks.underPressure("give back", () -> inHand.abandon(rest), rest.size());
                return;
            }
            oneFailed |= ended == Ended.FAILED;
            oneEnded = true;
        }
    }

    /**
     * One tenant's marks through {@code refreshAll}: REFRESHED; FAILED when it threw, so each is retried alone;
     * GIVEN_BACK when it met back-pressure, so none is.
     */
    private Ended refreshTogether(List<ClaimedMark> marks, ClaimedBatch batch) {
        ClaimedMark first = marks.get(0);
        Projection projection = catalog.byName(first.key().projection());
        List<String> ids = marks.stream().map(m -> m.key().entityId()).toList();
        Instant start = clock.instant();
        TracedRefresh traced = new TracedRefresh(tracing, checks, transactions);
        traced.begin(marks);
        List<AckOutcome> outcomes;
        try {
            outcomes = TenantScoped.run(tenantScope, first.key().tenantId(), () -> {
                List<ClaimedMark> held = inHand.fitting(marks);
                if (held == null) {
                    return null;
                }
                return transactions.inNewTransaction(leases.refreshTimeout(held, clock.instant()), connection -> {
                    commits.tell(connection, first.key().projection());
                    projection.refreshAll(ids);
                    // acks lock rows in key order, as every statement locking several pending rows (contract §3)
                    return queue.ackAll(connection, held, clock.instant());
                });
            }, closing -> callbacks.scopeCloseFailed(first.key(), marks.size(), closing));
            if (outcomes == null) {
                traced.end(TracedRefresh.GIVEN_BACK, null); // a claim was lost before the refresh began
                return Ended.GIVEN_BACK;
            }
            traced.end(TracedRefresh.REFRESHED, null);
        } catch (Exception | LinkageError | AssertionError e) {
            boolean pressed = isBackPressure(first, e) && !giveBacks.pressedOften(marks);
            traced.end(pressed ? TracedRefresh.GIVEN_BACK : TracedRefresh.FAILED, e);
            if (pressed) {
                giveBacks.pressed(batch, marks, e);
                return Ended.GIVEN_BACK;
            }
            // a group that met back-pressure half the limit of times goes one by one: the key that meets it is
            // found and counted alone, and its neighbours are not held (nor, at the limit, counted as failed)
            LOG.log(Level.FINE, "refreshAll of {0} [{1}] failed, refreshing {2} ids alone: {3}",
                    new Object[] {first.key().projection(), first.key().tenantId(), ids.size(), e});
            return Ended.FAILED;
        } finally {
            traced.end(TracedRefresh.FAILED, null); // an Error past the catch: the span ends, its scope leaves the thread
        }
        // committed and acked: from here on nothing is the refresh's failure (docs/contract.md §6)
        // a batch's time shared by its marks, so the timer's sum over count stays a time per refresh
        Instant committedAt = clock.instant();
        Duration took = Duration.between(start, committedAt).dividedBy(marks.size());
        batch.refreshedAsClaimed((int) outcomes.stream().filter(outcome -> outcome == AckOutcome.SUCCESS).count());
        for (int i = 0; i < marks.size(); i++) {
            ends.succeeded(marks.get(i), outcomes.get(i), committedAt, took);
        }
        return Ended.REFRESHED;
    }

    /** Whether {@code failure} is back-pressure by the server's signals or the mark's projection's list. */
    private boolean isBackPressure(ClaimedMark mark, Throwable failure) {
        return isBackPressure(mark.key().projection(), failure);
    }

    boolean isBackPressure(String projection, Throwable failure) {
        return new BackPressure(settings.of(projection).backPressure()).isBackPressure(failure);
    }

    /**
     * A refresh in one transaction failed by the projection's own code (docs/design.md D53) and rolled back whole:
     * its failure recorded on {@code mark}, claimed again for it, as if it had failed on the ordinary path.
     */
    void failedInOneTransaction(ClaimedMark mark, Throwable failure, Duration took) {
        ends.failed(new ClaimedBatch(List.of(mark)), mark, failure, took);
    }

    /** How a mark's refresh ended. */
    private enum Ended {
        REFRESHED,
        /** its failure recorded (backing off or parked) */
        FAILED,
        /** back-pressure: given back without an attempt */
        GIVEN_BACK
    }

    private Ended refreshOne(ClaimedMark mark, ClaimedBatch batch) {
        Projection projection = catalog.byName(mark.key().projection());
        Instant start = clock.instant();
        AckOutcome outcome;
        try {
            outcome = refreshAndAck(projection, mark);
        } catch (Exception | LinkageError | AssertionError e) {
            if (isBackPressure(mark, e)) {
                giveBacks.pressed(batch, List.of(mark), e);
                return Ended.GIVEN_BACK;
            }
            ends.failed(batch, mark, e, Duration.between(start, clock.instant()));
            return Ended.FAILED;
        }
        if (outcome == null) {
            return Ended.GIVEN_BACK; // its claim was lost before the refresh began: another worker has the key
        }
        // committed and acked: from here on nothing is the refresh's failure (docs/contract.md §6)
        if (outcome == AckOutcome.SUCCESS) {
            batch.refreshedAsClaimed(1);
        }
        Instant committedAt = clock.instant();
        ends.succeeded(mark, outcome, committedAt, Duration.between(start, committedAt));
        return Ended.REFRESHED;
    }

    /**
     * One mark's refresh and ack in one transaction, as its tenant; returns once they committed, or {@code null},
     * unstarted, when its claim was lost before the refresh could begin. Entering the tenant scope is part of it, the
     * scope's close after the commit is not.
     */
    private AckOutcome refreshAndAck(Projection projection, ClaimedMark mark) throws Exception {
        TracedRefresh traced = new TracedRefresh(tracing, checks, transactions);
        traced.begin(List.of(mark));
        try {
            AckOutcome outcome = TenantScoped.run(tenantScope, mark.key().tenantId(), () -> {
                List<ClaimedMark> held = inHand.fitting(List.of(mark));
                if (held == null) {
                    return null;
                }
                return transactions.inNewTransaction(leases.refreshTimeout(held, clock.instant()), connection -> {
                    commits.tell(connection, mark.key().projection());
                    projection.refresh(mark.key().entityId());
                    return queue.ack(connection, held.get(0), clock.instant());
                });
            }, closing -> callbacks.scopeCloseFailed(mark.key(), closing));
            traced.end(outcome == null ? TracedRefresh.GIVEN_BACK : TracedRefresh.REFRESHED, null);
            return outcome;
        } catch (Exception | LinkageError | AssertionError e) {
            traced.end(isBackPressure(mark, e) ? TracedRefresh.GIVEN_BACK : TracedRefresh.FAILED, e);
            throw e;
        } finally {
            traced.end(TracedRefresh.FAILED, null); // an Error past the catch: the span ends, its scope leaves the thread
        }
    }

    /**
     * A suspended projection's probe (docs/contract.md §6): one refresh of {@code mark}, acked as any other; a failure
     * is not held against the key (its attempts stay), the claim is given back. True when it succeeded.
     */
    boolean probe(ClaimedMark mark) {
        Projection projection = catalog.byName(mark.key().projection());
        Instant start = clock.instant();
        inFlight.refreshBegins();
        try {
            AckOutcome outcome;
            try {
                outcome = refreshAndAck(projection, mark);
            } catch (Exception | LinkageError | AssertionError e) {
                probeFailed(mark, e);
                return false;
            }
            if (outcome == null) {
                return false; // its claim was lost before the refresh began
            }
            // committed and acked: the probe succeeded, whatever the listener does (docs/contract.md §6)
            lag.refreshed(mark, clock.instant());
            guard.forget(mark.key().projection());
            callbacks.refreshed(mark.key(), outcome, Duration.between(start, clock.instant()));
            return true;
        } finally {
            inFlight.refreshEnds();
        }
    }

    /** The probe's refresh failed: logged, and its mark given back without an attempt. */
    private void probeFailed(ClaimedMark mark, Throwable e) {
        LOG.log(Level.INFO, "probe of suspended {0} failed, it stays suspended: {1}",
                new Object[] {mark.key(), FailureText.of(e)});
        // no attempt counted; due after the next probe's turn, so that probe tries another mark first (one key
        // failing for its own reason must not keep its projection suspended)
        inHand.giveBackUntried(mark, clock.instant().plus(settings.probeInterval()));
    }

    /** Outcomes seen while a projection was suspended say nothing about it once the suspension is lifted. */
    void forgetFailures(String projection) {
        guard.forget(projection);
    }

    /** Gives back claims that were never started. */
    void release(List<ClaimedMark> marks) {
        inHand.release(marks);
    }
}
