package dev.projections.refresh;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.logging.Logger;

/**
 * An idle processing instance's look for due marks between sweeps (docs/design.md D54): a web node's commits are
 * handed to no drainer, so without it they would wait for a processing instance's next sweep. The container runs it
 * every {@code projection.wake-up-interval} (EE: {@code SweepTimer}'s thread); it queries the queue only while a live
 * web node deploys one of this instance's projections, as counted at most {@link #RECOUNT} ago (by the sweep, or by
 * the look itself: a web node that starts is served within seconds, not at the next sweep), and when a mark is due
 * asks a drainer collecting or about to run to look, else starts one (a running drainer looks only at the projection
 * of its turn, so its running is no reason to skip). Each time it counts, it also looks for rebuild runs another
 * instance started (a web node's operator, say) and starts a drainer when one can step: such a run is stepped within
 * seconds, not at the next sweep (design D40). Does nothing once the engine stops.
 */
public final class WakeUpLook {

    private static final Logger LOG = Logger.getLogger(WakeUpLook.class.getName());

    /** How old a count of the web nodes may be before a look counts again. */
    static final Duration RECOUNT = Duration.ofSeconds(5);

    private final BooleanSupplier stopping;
    private final EngineStats stats;
    private final Supplier<ProcessingCount> recount;
    private final Clock clock;
    private final BooleanSupplier dueWork;
    private final BooleanSupplier rebuildWork;
    private final Sweep.Drainers drainers;
    private Instant lastCount;

    WakeUpLook(BooleanSupplier stopping, EngineStats stats, Supplier<ProcessingCount> recount, Clock clock,
               BooleanSupplier dueWork, BooleanSupplier rebuildWork, Sweep.Drainers drainers) {
        this.stopping = stopping;
        this.stats = stats;
        this.recount = recount;
        this.clock = clock;
        this.dueWork = dueWork;
        this.rebuildWork = rebuildWork;
        this.drainers = drainers;
    }

    /** The look of an engine's parts. */
    public static WakeUpLook of(RefreshEngine engine, RebuildStepper rebuilds, InstanceHeartbeat heartbeat,
                                EngineStats stats, Clock clock, Sweep.Drainers drainers) {
        return new WakeUpLook(engine::stopping, stats, () -> heartbeat.countProcessing(false), clock,
                engine::hasDueWork, () -> rebuilds.lookForRuns() && rebuilds.hasWork(), drainers);
    }

    /** Looks, when it should; whether it queried the queue for due marks. One thread runs it at a time. */
    public synchronized boolean run() {
        if (stopping.getAsBoolean()) {
            return false;
        }
        try {
            boolean recounted = recountDue();
            ProcessingCount count = recounted ? recount.get() : stats.processing();
            if (count == null || count.webNodes() == 0) {
                return false;
            }
            if (dueWork.getAsBoolean() || recounted && rebuildWork.getAsBoolean()) {
                drainers.startIfSlotFree(DrainerOrigin.WAKE_UP);
            }
        } catch (DatabaseTroubleException e) {
            // the database is down or busy: the sweep reports it, and the next look tries again
            LOG.fine("projection engine: a wake-up look failed: " + e.getMessage());
        }
        return true;
    }

    /**
     * Another instance signalled a commit with marks ({@link WakeUpSignals.Heard#MARKS}): a drainer is asked to look
     * or started, without a query first (the marks are due, unless another instance's drainer took them already); or
     * it signalled a rebuild run it started, or the listener listens again after an outage ({@code REBUILD}): the
     * rebuild runs are looked for and a drainer started if they or due marks are waiting. Does nothing once the engine
     * stops.
     */
    public synchronized void signalled(WakeUpSignals.Heard heard) {
        if (stopping.getAsBoolean() || heard == WakeUpSignals.Heard.OWN) {
            return;
        }
        try {
            boolean work = heard == WakeUpSignals.Heard.MARKS || rebuildWork.getAsBoolean() || dueWork.getAsBoolean();
            if (work && !stopping.getAsBoolean()) { // the engine may have begun to stop during the queries
                drainers.startIfSlotFree(DrainerOrigin.SIGNAL);
            }
        } catch (DatabaseTroubleException e) {
            LOG.fine("projection engine: a look after a signal failed: " + e.getMessage());
        }
    }

    /** Whether this look counts again: no count yet, or its own last one {@link #RECOUNT} ago or more. */
    private boolean recountDue() {
        Instant now = clock.instant();
        if (stats.processing() == null || lastCount == null || !now.isBefore(lastCount.plus(RECOUNT))) {
            lastCount = now;
            return true;
        }
        return false;
    }
}
