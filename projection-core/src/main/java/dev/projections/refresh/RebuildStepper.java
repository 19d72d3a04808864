package dev.projections.refresh;

import dev.projections.MarkKey;
import dev.projections.Projection;
import dev.projections.RebuildProgress;
import dev.projections.TenantScope;
import dev.projections.lifecycle.DriftFound;
import dev.projections.lifecycle.RebuildEnded;
import dev.projections.refresh.RebuildPage.BadIdsException;
import dev.projections.store.DriftTable;
import dev.projections.store.DriftTable.FoundBy;
import dev.projections.store.PendingQueue;
import dev.projections.store.RebuildHistory;
import dev.projections.store.RebuildMarks;
import dev.projections.store.RebuildPartitions;
import dev.projections.store.RebuildRun;
import dev.projections.store.RebuildRuns;
import dev.projections.store.Tables;
import java.sql.Connection;
import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.ToIntFunction;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One step of a background rebuild (docs/contract.md §7): lease a run, take the page of ids after its cursor from
 * {@code ids(cursor, rebuild-page-size)} inside the run's tenant scope, mark them at rebuild priority with one upsert and
 * advance the cursor — in one transaction, so a step is marked and counted exactly once or not at all. Steps run
 * on the drainers, no thread is held per run. A step that fails for a transient reason ({@link Transient}) rolls back
 * and is stepped again once its lease lapses; any other failure — of {@code ids}, of entering the tenant scope, of a
 * statement — fails the run with its error at once, as it would fail again at every lease.
 */
public final class RebuildStepper {

    private static final Logger LOG = Logger.getLogger(RebuildStepper.class.getName());

    private final RebuildRuns rebuilds;
    private final RebuildPartitions partitions;
    private final RebuildMarks rebuildMarks;
    private final PendingQueue pending;
    private final Transactions transactions;
    private final ShortTransactions shortTransactions;
    private final LifecycleAnnouncer lifecycle;
    private final EngineStats stats;
    private final DriftTable drift;
    private final RebuildHistory history;
    private final Clock clock;
    private final ProjectionCatalog catalog;
    private final TenantScope tenantScope;
    /** Each projection's rebuild page size ({@code projection.<name>.rebuild-page-size}, else the global one). */
    private final ToIntFunction<String> pageSizes;
    private final Duration lease;
    private final AtomicBoolean purgeRequested = new AtomicBoolean(true);
    /** Signals that a run may exist: counted, so a look that saw none cannot hide a signal given during it. */
    private final AtomicLong signals = new AtomicLong();
    /** The signal count at which the last look found no run with work; -1: not looked yet. */
    private volatile long quietAt = -1;

    /** Rebuild marks of a cancelled run deleted per transaction. */
    static final int PURGE_CHUNK = 5_000;

    private final StepFailures stepFailures;
    /** How long one call deletes before it lets its drainer claim again. */
    static final Duration PURGE_TURN = Duration.ofSeconds(2);

    public RebuildStepper(Tables store, Transactions transactions, Clock clock,
                          ProjectionCatalog catalog, TenantScope tenantScope, ToIntFunction<String> pageSizes,
                          Duration lease) {
        this(store, transactions, clock, catalog, tenantScope, pageSizes, lease, LifecycleAnnouncer.NONE,
                new EngineStats());
    }

    /**
     * The same, telling {@code lifecycle} of each run that ended here (finished, failed or cancelled) and of the drift
     * each verification step found, which {@code stats} counts.
     */
    public RebuildStepper(Tables store, Transactions transactions, Clock clock,
                          ProjectionCatalog catalog, TenantScope tenantScope, ToIntFunction<String> pageSizes,
                          Duration lease, LifecycleAnnouncer lifecycle, EngineStats stats) {
        this.lifecycle = lifecycle;
        this.stats = stats;
        this.drift = store.drift();
        this.history = store.rebuildHistory();
        this.rebuilds = store.rebuildRuns();
        this.partitions = store.rebuildPartitions();
        this.rebuildMarks = store.rebuildMarks();
        this.pending = store.queue();
        this.transactions = transactions;
        this.clock = clock;
        this.catalog = catalog;
        this.tenantScope = tenantScope;
        this.pageSizes = pageSizes;
        this.lease = lease;
        this.shortTransactions = new ShortTransactions(transactions, new LeasePolicy(lease));
        this.stepFailures = new StepFailures(lease.dividedBy(2));
    }

    /** Steps one runnable run; false when there was none. */
    public boolean step() {
        return step(catalog.claimable());
    }

    /**
     * Steps one runnable run of {@code projections} (a drainer's turn steps its own projection's, so each keeps
     * about one page queued); false when there was none.
     */
    public boolean step(Collection<String> projections) {
        Set<String> claimable = new LinkedHashSet<>(projections);
        claimable.retainAll(catalog.claimable());
        if (claimable.isEmpty()) {
            return false;
        }
        String token = UUID.randomUUID().toString();
        Optional<RebuildRun> leased = shortTransactions.run("rebuild step",
                connection -> partitions.lease(connection, claimable, clock.instant(), lease, token));
        if (leased.isEmpty()) {
            return false;
        }
        RebuildRun run = leased.get();
        Projection projection = catalog.byName(run.projection());
        long started = System.nanoTime();
        try {
            // entering the tenant is part of the step; closing it once the step committed is not
            List<String> drifted = TenantScoped.run(tenantScope, run.tenant(), () -> transactions.inNewTransaction(
                    lease.dividedBy(2), connection -> markPage(connection, projection, run)),
                    closing -> scopeCloseFailed(run, closing));
            stepFailures.cleared(run);
            if (!drifted.isEmpty()) {
                stats.driftFound(run.projection(), drifted.size());
                lifecycle.announce(new DriftFound(run.projection(), run.tenant(), drifted, run.runId(), clock.instant()));
            }
        } catch (BadIdsException e) {
            stepFailures.cleared(run);
            fail(run, e.getCause());
        } catch (LeaseLostException e) {
            // taken over after the lease lapsed, or cancelled: the new owner or the cancel decides what follows
            LOG.log(Level.INFO, "rebuild step of run {0} ({1}) rolled back: {2}",
                    new Object[] {run.runId(), run.projection(), e.getMessage()});
        } catch (Exception | LinkageError | AssertionError e) {
            Throwable endsRun = stepFailures.endsRun(run, e, System.nanoTime() - started);
            if (endsRun == null) {
                // the step rolled back, the run stays RUNNING and is stepped again from its cursor once the lease lapses
                LOG.log(Level.WARNING, "PRJ201: rebuild step of run {0} ({1}) rolled back, retried after its lease: {2}",
                        new Object[] {run.runId(), run.projection(), FailureText.of(e)});
            } else {
                fail(run, endsRun);
            }
        }
        return true;
    }

    /**
     * The step's transaction: the page after the cursor marked at rebuild priority — for a verification only the ids
     * of it the projection reports drifted ({@link RebuildPage#drifted}), recorded as drift found — and the cursor
     * advanced; what a verification found drifted.
     */
    private List<String> markPage(Connection connection, Projection projection, RebuildRun run) throws Exception {
        int pageSize = pageSizes.applyAsInt(run.projection());
        List<String> ids = RebuildPage.after(projection, run, pageSize);
        List<String> toMark = run.verifies() ? notMarkedYet(connection, run, RebuildPage.drifted(projection, run, ids))
                : ids;
        TreeSet<MarkKey> keys = new TreeSet<>();
        for (String id : toMark) {
            keys.add(new MarkKey(run.projection(), run.tenant(), id));
        }
        if (!keys.isEmpty()) {
            pending.upsert(connection, List.copyOf(keys), PendingQueue.REBUILD, run.runId(), clock.instant());
            if (run.verifies()) {
                drift.found(connection, run.projection(), run.tenant(), clock.instant(), FoundBy.VERIFY, ids.size(),
                        keys.size());
            }
        }
        String cursor = ids.isEmpty() ? run.cursor() : ids.get(ids.size() - 1);
        if (!rebuilds.advance(connection, run, cursor, ids.size(), keys.size(), ids.size() < pageSize)) {
            throw new LeaseLostException("the lease of partition " + run.partition() + " of rebuild run "
                    + run.runId() + " was lost, or the run was cancelled");
        }
        return run.verifies() ? toMark : List.of();
    }

    /**
     * Of a verification page's drifted ids, those without a mark waiting (docs/design.md D57): a key the run or a live
     * change marked already is repaired by that mark's refresh and is not drift found, so a key is counted once
     * whichever partition meets it first, and a parked key is not counted at every verification.
     */
    private List<String> notMarkedYet(Connection connection, RebuildRun run, List<String> drifted) throws Exception {
        if (drifted.isEmpty()) {
            return drifted;
        }
        Set<String> waiting = drift.waiting(connection, run.projection(), run.tenant(), drifted);
        return waiting.isEmpty() ? drifted : drifted.stream().filter(id -> !waiting.contains(id)).toList();
    }

    /** The step committed before its tenant scope's close threw: the page is marked and counted, nothing to undo. */
    private static void scopeCloseFailed(RebuildRun run, Throwable closing) {
        LOG.log(Level.WARNING, "PRJ202: TenantScope close failed after a rebuild step of run {0} ({1} [{2}]) committed; the "
                + "step stands: {3}", new Object[] {run.runId(), run.projection(), run.tenant(), FailureText.of(closing)});
    }

    /** Ends the run FAILED with {@code failure}, as the console and the history show it (its last error). */
    private void fail(RebuildRun run, Throwable failure) {
        String error = FailureText.of(failure);
        LOG.log(Level.WARNING, "PRJ203: rebuild run {0} of {1} [{2}] failed: {3}",
                new Object[] {run.runId(), run.projection(), run.tenant(), error});
        if (shortTransactions.run("rebuild step", connection -> rebuilds.fail(connection, run, error, clock.instant()))) {
            announceEnd(run.runId());
        }
    }

    /**
     * Tells the application a run ended, once its end committed, with the run as it ended: read in a short
     * transaction of its own (the caller's, a cancelling operator's, is suspended meanwhile). A failed read is logged
     * and the event is not told; the run's end stands.
     */
    private void announceEnd(String runId) {
        if (lifecycle == LifecycleAnnouncer.NONE) {
            return;
        }
        Optional<RebuildProgress> ended;
        try {
            ended = shortTransactions.runOfItsOwn("read an ended rebuild run",
                    connection -> history.progress(connection, runId, clock.instant()));
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "PRJ204: rebuild run {0} ended, but could not be read to tell its observers: {1}",
                    new Object[] {runId, FailureText.of(e)});
            return;
        }
        ended.ifPresent(run -> lifecycle.announce(new RebuildEnded(run)));
    }

    /** The step's partition is no longer this step's: it rolled back, and nothing is failed. */
    private static final class LeaseLostException extends RuntimeException {
        LeaseLostException(String message) {
            super(message);
        }
    }

    /**
     * Marks runs whose ids are all marked and whose rebuild marks are all refreshed as finished, and deletes the
     * rebuild marks of cancelled runs.
     */
    public void finishExhausted() {
        shortTransactions.run("rebuild step", connection -> rebuilds.finishExhausted(connection, clock.instant()))
                .forEach(this::announceEnd);
        purgeCancelled();
    }

    /**
     * Cancels run {@code runId} for {@code by}, in a transaction of its own, committed before this returns
     * (docs/contract.md §7); false when it was not running. Of its own: the cancel locks the run's row, and a step
     * takes the row after its page's pending rows; in the caller's transaction, which goes on to mark keys at its
     * commit, the two would wait for each other (review D6). A rollback of the caller's transaction therefore does not
     * undo a cancel. This instance's drainers then delete the run's marks before they claim more.
     */
    public boolean cancel(String runId, String by) {
        return cancel(runId, by, connection -> null);
    }

    /**
     * As {@link #cancel(String, String)}, with {@code alongside} (the operator's audit row) written in the cancel's
     * transaction once the run was cancelled: when it throws, the cancel rolls back with it, so neither commits
     * without the other.
     */
    public boolean cancel(String runId, String by, Transactions.Work<?> alongside) {
        boolean cancelled = shortTransactions.runOfItsOwn("rebuild cancel", connection -> {
            if (!rebuilds.cancel(connection, runId, by, clock.instant())) {
                return false;
            }
            alongside.run(connection);
            return true;
        });
        if (cancelled) {
            requestPurge();
            announceEnd(runId);
        }
        return cancelled;
    }

    /**
     * Adopts the runs a previous release started during a rolling upgrade and no longer steps (see
     * {@link RebuildRuns#adoptLegacyRuns}). The sweep's, once per sweep: such runs are rare and wait a lease anyway.
     */
    public void adoptLegacyRuns() {
        shortTransactions.run("rebuild adoption", connection -> rebuilds.adoptLegacyRuns(connection, clock.instant()));
    }

    /** After a cancel on this instance: its drainers delete the run's marks before they claim more. */
    public void requestPurge() {
        purgeRequested.set(true);
    }

    public boolean purgeRequested() {
        return purgeRequested.get();
    }

    /**
     * Deletes cancelled runs' rebuild marks, {@value #PURGE_CHUNK} per transaction, for at most {@link #PURGE_TURN};
     * what is left, the next call (a drainer's, the sweep's) deletes.
     */
    public void purgeCancelled() {
        long ends = System.nanoTime() + PURGE_TURN.toNanos();
        purgeRequested.set(false);
        while (System.nanoTime() < ends) {
            int deleted;
            try {
                deleted = shortTransactions.run("rebuild cancel",
                        connection -> rebuildMarks.purgeCancelled(connection, null, clock.instant(), PURGE_CHUNK));
            } catch (DatabaseTroubleException e) {
                if (!Transient.isLockTimeout(e)) {
                    throw e;
                }
                break; // its lock wait ran out (docs/pitfalls.md #92), and it rolled back: the next pass purges
            }
            if (deleted < 0) {
                return;
            }
            if (deleted < PURGE_CHUNK) {
                break; // released, or left with marks a claim or a commit holds now: the next pass looks again
            }
        }
        purgeRequested.set(true);
    }

    /**
     * A run may have work: one started on this instance (after its commit), its rebuild marks claimed here, or the
     * sweep's look finding one. Drainers that run dry look at the rebuild tables again.
     */
    public void runsMayExist() {
        signals.incrementAndGet();
    }

    /**
     * Whether drainers that run dry should look at the rebuild tables: false once a look found no active run and
     * no signal came since. Plain live traffic then costs no rebuild statement (issue 30); a run started on another
     * instance is found by this instance's next sweep.
     */
    public boolean mayHaveWork() {
        return quietAt != signals.get();
    }

    /**
     * Looks whether any run is active (running, or cancelled with marks left); when none is, drainers stop looking
     * until a signal. The signal count is read before the query, so a run signalled while it runs keeps them looking.
     */
    public boolean lookForRuns() {
        long seen = signals.get();
        boolean active = shortTransactions.run("rebuild look", rebuilds::anyActive);
        if (active) {
            runsMayExist();
        } else {
            quietAt = seen;
        }
        return active;
    }

    public boolean hasWork() {
        return shortTransactions.run("rebuild step",
                connection -> rebuilds.hasWork(connection, catalog.claimable(), clock.instant()));
    }
}
