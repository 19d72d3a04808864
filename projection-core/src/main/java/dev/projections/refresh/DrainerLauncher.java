package dev.projections.refresh;

import dev.projections.MarkKey;
import java.util.Collection;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.List;
import java.util.Set;

/**
 * The one place that starts drainers (docs/contract.md §5): the {@link Handoff}'s slot protocol — reserve, run, finish
 * or pass on, give back when the start failed — on threads of the engine's own. A committing thread, an operation
 * that made work due, a drainer that found a backlog and the sweep all come here; none of them ever waits.
 * <p>
 * In the server the threads are the drainer pool's and each drainer runs through an EJB for its run-as identity
 * ({@link RunAs}); outside one, any {@link Executor} with at least {@code workers} threads.
 * <p>
 * A web node ({@code projection.processing=false}, docs/design.md D54) starts none: its commits' marks are in the
 * table, where the processing instances claim them, and nothing of this instance's is ever handed over or reserved.
 */
public final class DrainerLauncher implements Sweep.Drainers {

    private static final Logger LOG = Logger.getLogger(DrainerLauncher.class.getName());

    /** Runs a drainer's work under the engine's identity, on the thread it is given (the server's EJB door). */
    @FunctionalInterface
    public interface RunAs {
        RunAs CALLER = Work::run;

        void run(Work work);
    }

    /**
     * A drainer's or a probe's work, made only here: a door that runs work under the engine's identity must not
     * run just any {@code Runnable} a caller hands it.
     */
    public static final class Work {
        private final Runnable work;

        private Work(Runnable work) {
            this.work = work;
        }

        public void run() {
            work.run();
        }
    }

    private final Handoff handoff;
    private final RefreshEngine engine;
    private final EngineStats stats;
    private final Executor threads;
    private final RunAs runAs;
    private final Sweep.Troubles troubles;
    private final Consumer<RuntimeException> unexpected;
    private final AtomicBoolean probing = new AtomicBoolean();
    private final boolean processing;

    /**
     * @param threads    where drainers run; throws (as a stopped executor does) when it takes no more work
     * @param unexpected told what a drainer ended on besides database trouble, after it was logged
     * @param processing false on a web node: nothing starts
     */
    public DrainerLauncher(Handoff handoff, RefreshEngine engine, EngineStats stats, Executor threads, RunAs runAs,
                           Sweep.Troubles troubles, Consumer<RuntimeException> unexpected, boolean processing) {
        this.handoff = handoff;
        this.engine = engine;
        this.stats = stats;
        this.threads = threads;
        this.runAs = runAs;
        this.troubles = troubles;
        this.unexpected = unexpected;
        this.processing = processing;
    }

    /** On the committing thread, after the commit: the keys to the hand-off, and a drainer if one must start. */
    public void committed(Collection<MarkKey> keys) {
        if (!processing) {
            return;
        }
        Slot slot = handoff.offer(keys);
        if (slot != null) {
            start(DrainerOrigin.HANDOFF, slot, false);
        }
        if (handoff.takeSweepRequest()) {
            startIfSlotFreeForAny(DrainerOrigin.SWEEP); // keys were dropped: the table, not the hand-off, has them
        }
    }

    /**
     * As {@link #startIfSlotFree(DrainerOrigin)}, for the due marks of every deployed projection, paused or not: for a
     * thread that must not read the database, a business or operator transaction's after its commit (its
     * synchronization still on the thread; the pauses are read by the drainer, on its own thread, when it claims).
     */
    public boolean startIfSlotFreeForAny(DrainerOrigin origin) {
        return startIfSlotFree(origin, engine.deployed());
    }

    /**
     * Work became due that nobody hands over (the sweep, an operation, a backlog): a drainer collecting or about to
     * run is asked to look at due marks, else one starts if a slot is free. False when all are busy (they will find
     * the work themselves).
     */
    @Override
    public boolean startIfSlotFree(DrainerOrigin origin) {
        // another instance's signal may follow its resume of a projection this instance's copy of the pauses, up to a
        // second old, still calls paused: its marks would wait for the next sweep (WebAndProcessingNodesIT)
        return startIfSlotFree(origin, origin == DrainerOrigin.SIGNAL ? engine.claimableAfresh() : engine.claimable());
    }

    /** As {@link #startIfSlotFree(DrainerOrigin)}, for the due marks of {@code projections} only. */
    public boolean startIfSlotFree(DrainerOrigin origin, Collection<String> projections) {
        if (!processing) {
            return false;
        }
        engine.lookForDueMarks(projections);
        if (handoff.askForDueLook(projections)) {
            return true;
        }
        Slot slot = handoff.tryReserve();
        if (slot == null) {
            return false;
        }
        start(origin, slot, true);
        return true;
    }

    /** Starts the probes of suspended projections on a drainer thread, unless the last ones are still running. */
    @Override
    public void startProbes() {
        if (!processing || !probing.compareAndSet(false, true)) {
            return;
        }
        try {
            threads.execute(() -> {
                try {
                    runAs.run(new Work(this::probe));
                } catch (RuntimeException e) {
                    LOG.log(Level.WARNING, "PRJ107: could not run the probes of suspended projections", e);
                } finally {
                    probing.set(false);
                }
            });
        } catch (RuntimeException e) {
            probing.set(false);
            LOG.log(Level.WARNING, "PRJ108: could not start the probes of suspended projections", e);
        }
    }

    /**
     * Starts a drainer in {@code slot}, already reserved; gives the slot back if it cannot start (the threads
     * stopped, or the container refused the call while the deployment stops). With {@code lookFirst} its first claim
     * looks for due marks; without, it collects handed keys first.
     */
    void start(DrainerOrigin origin, Slot slot, boolean lookFirst) {
        try {
            threads.execute(() -> {
                try {
                    runAs.run(new Work(() -> drain(origin, slot, lookFirst)));
                } catch (RuntimeException e) {
                    notStarted(slot, e); // a no-op for a slot its drainer already ended
                }
            });
        } catch (RuntimeException e) {
            notStarted(slot, e);
        }
    }

    private static void notStarted(Slot slot, RuntimeException e) {
        slot.startFailed();
        LOG.log(Level.WARNING, "PRJ109: could not start a drainer; the sweep will pick up the marks", e);
    }

    /** A drainer: holds its slot while it drains, then gives it back or passes it to a successor. */
    private void drain(DrainerOrigin origin, Slot slot, boolean lookFirst) {
        if (!slot.run()) {
            return; // its slot was taken back by the sweep while it waited to run
        }
        boolean moreWork = false;
        try {
            stats.drainerStarted(origin);
            // one that claims a full batch has found a backlog, and starts a helper
            moreWork = engine.drain(projection -> startIfSlotFree(DrainerOrigin.BACKLOG, Set.of(projection)),
                    helper -> start(DrainerOrigin.BACKLOG, helper, false), slot, lookFirst);
        } catch (DatabaseTroubleException e) {
            troubles.record(e);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "PRJ110: drainer ended on an unexpected error; the sweep will pick up its marks", e);
            unexpected.accept(e);
        } finally {
            Slot successor = slot.finish(moreWork, engine.stopping());
            if (successor != null) {
                // work left at the turn's end: the successor goes on with it; keys that arrived: it collects them
                start(DrainerOrigin.HANDOFF, successor, moreWork);
            }
        }
    }

    /**
     * The probes of suspended projections (docs/contract.md §6): a probe is a refresh, so it runs as a drainer. A
     * projection whose probe lifted its suspension gets a drainer for its backlog at once, not at the next sweep.
     */
    private void probe() {
        try {
            List<String> lifted = engine.probeSuspended();
            if (!lifted.isEmpty()) {
                startIfSlotFree(DrainerOrigin.SWEEP, lifted);
            }
        } catch (DatabaseTroubleException e) {
            troubles.record(e);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "PRJ111: probing suspended projections failed; the next sweep tries again", e);
        }
    }
}
