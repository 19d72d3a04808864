package dev.projections.refresh;

import dev.projections.MarkKey;
import dev.projections.Projection;
import dev.projections.TenantScope;
import dev.projections.config.Settings;
import dev.projections.store.AckOutcome;
import dev.projections.store.ClaimedMark;
import dev.projections.store.PendingStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Claim → refresh → ack (SPEC §4), as plain Java: the EE layer supplies transactions, the projections and the
 * tenant scope, and calls {@link #drain} from its asynchronous drainers.
 */
public final class RefreshEngine {

    private static final Logger LOG = Logger.getLogger(RefreshEngine.class.getName());

    private final PendingStore store;
    private final Transactions transactions;
    private final Clock clock;
    private final Settings settings;
    private final Handoff handoff;
    private final ProjectionCatalog catalog;
    private final TenantScope tenantScope;
    private final RefreshListener listener;
    private final Backoff backoff;
    private final LeasePolicy leases;
    private RebuildStepper rebuilds;

    /** How long one drainer invocation works before it hands its slot to a fresh one. */
    static final Duration DRAIN_TURN = Duration.ofSeconds(5);

    private final Set<ClaimedBatch> active = ConcurrentHashMap.newKeySet();
    private final Object startedLock = new Object();
    private int started;
    private int draining;
    private volatile boolean stopping;

    public RefreshEngine(PendingStore store, Transactions transactions, Clock clock, Settings settings, Handoff handoff,
                         ProjectionCatalog catalog, TenantScope tenantScope, RefreshListener listener) {
        this.store = store;
        this.transactions = transactions;
        this.clock = clock;
        this.settings = settings;
        this.handoff = handoff;
        this.catalog = catalog;
        this.tenantScope = tenantScope;
        this.listener = listener;
        this.backoff = new Backoff(settings.retryDelay(), settings.maxRetryDelay());
        this.leases = new LeasePolicy(settings.leaseTime());
    }

    /** Lets drainers step background rebuilds when live work leaves room. */
    public void stepRebuildsWith(RebuildStepper stepper) {
        this.rebuilds = stepper;
    }

    /**
     * One drainer's turn: claim the handed-over keys and due marks until there are none left, the engine stops,
     * or the turn is over; true when work may remain (the caller passes its slot on). Throws
     * {@link DatabaseTroubleException} when the database cannot be reached: the drainer ends and the sweep tries
     * again later.
     */
    public boolean drain() {
        synchronized (startedLock) {
            draining++;
        }
        try {
            return drainUntilEmptyOrDue();
        } finally {
            synchronized (startedLock) {
                draining--;
                startedLock.notifyAll();
            }
        }
    }

    /**
     * A drainer works for at most {@link #DRAIN_TURN} and then ends, returning true when work may remain, so its
     * slot passes to a fresh drainer. At undeploy the container waits for running asynchronous invocations before
     * the engine hears that it stops: a drainer that drained until the queue was empty could hold an undeploy for
     * as long as a big rebuild takes.
     */
    private boolean drainUntilEmptyOrDue() {
        long turnEnds = System.nanoTime() + DRAIN_TURN.toNanos();
        while (!stopping) {
            if (System.nanoTime() > turnEnds) {
                return true;
            }
            List<MarkKey> handed = handoff.take(settings.batchSize());
            Set<String> claimable = catalog.claimable();
            List<ClaimedMark> claimed = new ArrayList<>(handed.isEmpty() ? List.of() : claim(handed, claimable));
            // due marks too on every pass: under steady commits retries, re-marks and other instances' orphans
            // would otherwise wait until the hand-off runs dry
            if (claimed.size() < settings.batchSize()) {
                try {
                    claimed.addAll(claimDue(claimable, settings.batchSize() - claimed.size()));
                } catch (DatabaseTroubleException e) {
                    // the hand-off's keys are claimed already: give them back rather than leave them to their lease
                    try {
                        release(claimed);
                    } catch (DatabaseTroubleException stillDown) {
                        e.addSuppressed(stillDown);
                    }
                    throw e;
                }
            }
            // a rebuild steps only when nothing is due, so a step never delays marks already claimed
            boolean stepped = claimed.isEmpty() && rebuilds != null && rebuilds.step();
            if (claimed.isEmpty()) {
                if (stepped || !handed.isEmpty()) {
                    continue;
                }
                if (rebuilds != null) {
                    rebuilds.finishExhausted();
                }
                return false;
            }
            process(new ClaimedBatch(claimed));
        }
        return false;
    }

    /**
     * Step by step, for tests with {@code projection.auto-refresh=false}: claims those of {@code keys} that are
     * due and unleased, in a committed transaction of its own.
     */
    public List<ClaimedMark> claim(List<MarkKey> keys) {
        return claim(keys, catalog.claimable());
    }

    /** Step by step: claims due marks of every claimable projection. */
    public List<ClaimedMark> claimDue() {
        return claimDue(catalog.claimable(), settings.batchSize());
    }

    /** Step by step: starts (or releases) and refreshes claimed marks, exactly as a drainer does. */
    public void refresh(List<ClaimedMark> claimed) {
        process(new ClaimedBatch(claimed));
    }

    /** Claims in its own transaction, committed before any refresh starts. */
    List<ClaimedMark> claim(List<MarkKey> keys, Set<String> claimable) {
        String token = UUID.randomUUID().toString();
        return claimWith(token, connection ->
                store.claimKeys(connection, keys, claimable, clock.instant(), settings.leaseTime(), token));
    }

    List<ClaimedMark> claimDue(Set<String> claimable, int limit) {
        String token = UUID.randomUUID().toString();
        return claimWith(token, connection ->
                store.claimDue(connection, claimable, clock.instant(), settings.leaseTime(), token, limit));
    }

    /**
     * A claim whose transaction failed may still have committed (a connection lost during the commit): its marks
     * would then wait a whole lease with nobody working on them. So the token is released at once in a new
     * transaction; if the claim did not commit, that changes nothing, and if the database is still unreachable the
     * lease remains the fallback.
     */
    private List<ClaimedMark> claimWith(String token, Transactions.Work<List<ClaimedMark>> claim) {
        try {
            return inDatabase("claim", () -> transactions.inNewTransaction(leases.shortTransaction(), claim));
        } catch (DatabaseTroubleException failed) {
            try {
                int released = transactions.inNewTransaction(leases.shortTransaction(),
                        connection -> store.releaseToken(connection, token));
                if (released > 0) {
                    LOG.log(Level.INFO, "released {0} marks of a claim whose commit was reported failed", released);
                }
            } catch (Exception stillDown) {
                failed.addSuppressed(stillDown);
            }
            throw failed;
        }
    }

    /** Refreshes a claimed batch, one tenant's group of a projection at a time. */
    void process(ClaimedBatch batch) {
        active.add(batch);
        try {
            for (List<ClaimedMark> group : groupsOf(batch.marks())) {
                if (stopping) {
                    return;
                }
                List<ClaimedMark> startable = new ArrayList<>();
                List<ClaimedMark> giveBack = new ArrayList<>();
                Set<String> claimable = catalog.claimable();
                Instant now = clock.instant();
                for (ClaimedMark mark : group) {
                    boolean mayStart = claimable.contains(mark.key().projection()) && leases.leftToStart(mark, now);
                    if (mayStart && batch.start(mark)) {
                        startable.add(mark);
                    } else if (batch.toRelease(mark)) {
                        giveBack.add(mark);
                    }
                }
                release(giveBack);
                refreshGroup(startable);
            }
        } finally {
            release(batch.releaseUnstarted());
            active.remove(batch);
        }
    }

    private void refreshGroup(List<ClaimedMark> claimOrder) {
        if (claimOrder.isEmpty()) {
            return;
        }
        List<ClaimedMark> marks = new ArrayList<>(claimOrder);
        marks.sort(java.util.Comparator.comparing(ClaimedMark::key));
        beginRefresh();
        try {
            if (marks.size() == 1 || !refreshTogether(marks)) {
                for (ClaimedMark mark : marks) {
                    // the failed batch used up lease time: a mark is only refreshed alone while it can finish inside
                    if (leases.leftToStart(mark, clock.instant())) {
                        refreshOne(mark);
                    } else {
                        release(List.of(mark));
                    }
                }
            }
        } finally {
            endRefresh();
        }
    }

    /** One tenant's marks through {@code refreshAll}; false when it threw, so each is retried alone. */
    private boolean refreshTogether(List<ClaimedMark> marks) {
        ClaimedMark first = marks.get(0);
        Projection projection = catalog.byName(first.key().projection());
        List<String> ids = marks.stream().map(m -> m.key().entityId()).toList();
        Instant start = clock.instant();
        List<AckOutcome> outcomes;
        try (TenantScope.Entered ignored = enterTenant(first.key().tenantId())) {
            outcomes = transactions.inNewTransaction(leases.refreshTimeout(marks, clock.instant()), connection -> {
                projection.refreshAll(ids);
                // acks lock rows: in key order, like every statement locking several pending rows (SPEC §3)
                List<AckOutcome> acks = new ArrayList<>();
                for (ClaimedMark mark : marks) {
                    acks.add(store.ack(connection, mark, clock.instant()));
                }
                return acks;
            });
        } catch (Exception | LinkageError | AssertionError e) {
            LOG.log(Level.FINE, "refreshAll of {0} [{1}] failed, refreshing {2} ids alone: {3}",
                    new Object[] {first.key().projection(), first.key().tenantId(), ids.size(), e});
            return false;
        }
        // a batch's time shared by its marks, so the timer's sum over count stays a time per refresh
        Duration took = Duration.between(start, clock.instant()).dividedBy(marks.size());
        for (int i = 0; i < marks.size(); i++) {
            listener.refreshed(marks.get(i).key(), outcomeOf(outcomes.get(i)), took);
        }
        return true;
    }

    private void refreshOne(ClaimedMark mark) {
        Projection projection = catalog.byName(mark.key().projection());
        Instant start = clock.instant();
        try (TenantScope.Entered ignored = enterTenant(mark.key().tenantId())) {
            AckOutcome outcome = transactions.inNewTransaction(leases.refreshTimeout(List.of(mark), start), connection -> {
                projection.refresh(mark.key().entityId());
                return store.ack(connection, mark, clock.instant());
            });
            listener.refreshed(mark.key(), outcomeOf(outcome), Duration.between(start, clock.instant()));
        } catch (Exception | LinkageError | AssertionError e) {
            recordFailure(mark, e);
            listener.refreshed(mark.key(), RefreshOutcome.FAILED, Duration.between(start, clock.instant()));
        }
    }

    private void recordFailure(ClaimedMark mark, Throwable failure) {
        String error = FailureText.of(failure);
        LOG.log(Level.WARNING, "refresh of {0} failed (attempt {1}): {2}",
                new Object[] {mark.key(), mark.attempts() + 1, error});
        boolean recorded = inDatabase("record failure", () -> transactions.inNewTransaction(leases.shortTransaction(),
                connection -> store.recordFailure(connection, mark, error, clock.instant(), backoff)));
        if (!recorded) {
            LOG.log(Level.FINE, "failure of {0} not recorded: the claim was no longer mine", mark.key());
        }
    }

    private void release(List<ClaimedMark> marks) {
        if (!marks.isEmpty()) {
            inDatabase("release", () -> transactions.inNewTransaction(leases.shortTransaction(),
                    connection -> store.release(connection, marks)));
        }
    }

    private TenantScope.Entered enterTenant(String tenantId) {
        return tenantId.isEmpty() ? () -> { } : tenantScope.enter(tenantId);
    }

    private static RefreshOutcome outcomeOf(AckOutcome ack) {
        return ack == AckOutcome.SUCCESS ? RefreshOutcome.SUCCESS : RefreshOutcome.REPEATED;
    }

    /** Claimed marks grouped by projection and tenant, in claim order. */
    private static List<List<ClaimedMark>> groupsOf(List<ClaimedMark> marks) {
        Map<String, List<ClaimedMark>> groups = new LinkedHashMap<>();
        for (ClaimedMark mark : marks) {
            groups.computeIfAbsent(mark.key().projection() + '\u0000' + mark.key().tenantId(), k -> new ArrayList<>())
                    .add(mark);
        }
        return new ArrayList<>(groups.values());
    }

    /**
     * Stops claiming, gives back every claim not yet started, and waits up to {@code min(lease-time, 10s)} for
     * started refreshes and for drainers to give back what they claimed meanwhile, so that nothing is lost and no
     * key waits a lease after a redeploy.
     */
    public void stop() {
        stopping = true;
        for (ClaimedBatch batch : active) {
            try {
                release(batch.releaseUnstarted());
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "could not release claims at shutdown; their leases will expire", e);
            }
        }
        Duration wait = settings.leaseTime().compareTo(Duration.ofSeconds(10)) < 0 ? settings.leaseTime() : Duration.ofSeconds(10);
        long deadline = System.nanoTime() + wait.toNanos();
        synchronized (startedLock) {
            while (started > 0 || draining > 0) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    LOG.log(Level.WARNING, "{0} refreshes still running at shutdown; their leases will expire", started);
                    return;
                }
                try {
                    startedLock.wait(Math.max(1, left / 1_000_000));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    public boolean stopping() {
        return stopping;
    }

    private void beginRefresh() {
        synchronized (startedLock) {
            started++;
        }
    }

    private void endRefresh() {
        synchronized (startedLock) {
            started--;
            startedLock.notifyAll();
        }
    }

    private <T> T inDatabase(String what, java.util.concurrent.Callable<T> work) {
        try {
            return work.call();
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new DatabaseTroubleException(what + " failed: " + FailureText.of(e), e);
        }
    }

    /** Convenience for the EE layer's sweep: is anything due that this instance may claim? */
    public boolean hasDueWork() {
        return inDatabase("due check", () -> transactions.inNewTransaction(leases.shortTransaction(),
                connection -> store.hasDue(connection, catalog.claimable(), clock.instant())));
    }
}
