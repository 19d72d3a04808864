package dev.projections.refresh;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.logging.Logger;
import java.util.stream.Stream;

/**
 * One sweep (docs/contract.md §5) as its named steps, in order: take back drainer slots that were reserved but never
 * ran, beat this instance's heartbeat (and check its clock), finish rebuild runs whose marks are all refreshed,
 * start the probe of suspended projections, start a drainer when marks are due or a rebuild has work, then — once
 * the drainers are on their way, so what these statements meet holds up no refresh — report this instance's row
 * for the console, count the live instances that process marks, sample its trends (which prunes the minutes
 * past retention), take the drift samples that are due ({@link DriftSampler}) and prune the history. A web node's sweep ({@code projection.processing=false}, docs/design.md D54) beats, reports and
 * counts, and nothing else: the processing instances refresh, step, probe and prune. Sweeps never overlap, and none
 * runs once the engine stops. A {@link DatabaseTroubleException} ends the sweep where it happened and is counted for
 * the once-per-sweep warning; the reports each count their own and do not stop the others.
 * <p>
 * The container only schedules it (EE {@code SweepTimer}); the drainers it starts run on the container's threads.
 */
public final class Sweep {

    private static final Logger LOG = Logger.getLogger(Sweep.class.getName());

    /** The container's drainers: started on its threads, at most as many as there are free slots. */
    public interface Drainers {
        /** A suspended projection's probe: one refresh per probe-interval across the instances. */
        void startProbes();

        /** Whether a drainer will look at due marks: one collecting or about to run was asked to, or one started. */
        boolean startIfSlotFree(DrainerOrigin origin);
    }

    /** Database trouble: counted as it happens, reported once per sweep. */
    public interface Troubles {
        void record(DatabaseTroubleException e);

        void report();
    }

    /** A step of the sweep, by the name the docs give it. */
    public record Step(String name, Runnable action) {
    }

    private final List<Step> steps;
    private final List<Step> reports;
    private final BooleanSupplier stopping;
    private final Troubles troubles;
    private final EngineStats stats;
    private final AtomicBoolean running = new AtomicBoolean();

    Sweep(List<Step> steps, List<Step> reports, BooleanSupplier stopping, Troubles troubles, EngineStats stats) {
        this.steps = List.copyOf(steps);
        this.reports = List.copyOf(reports);
        this.stopping = stopping;
        this.troubles = troubles;
        this.stats = stats;
    }

    /** The engine's sweep over its parts. */
    public static Sweep of(RefreshEngine engine, Handoff handoff, InstanceHeartbeat heartbeat, RebuildStepper rebuilds,
                           Runnable sampleTrends, Runnable sampleDrift, Runnable pruneHistory, Drainers drainers,
                           Troubles troubles,
                           EngineStats stats) {
        return new Sweep(List.of(
                new Step("reclaim lost slots", () -> reclaimLostSlots(handoff)),
                new Step("heartbeat", () -> heartbeat.beat()),
                new Step("finish rebuilds", () -> {
                    rebuilds.adoptLegacyRuns();
                    rebuilds.finishExhausted();
                    rebuilds.lookForRuns(); // finds runs other instances started, for this one's drainers
                }),
                new Step("probe suspended projections", () -> drainers.startProbes()),
                new Step("start a drainer", () -> startDrainer(() -> engine.hasDueWork(), () -> rebuilds.mayHaveWork() && rebuilds.hasWork(),
                        drainers))),
                List.of(new Step("report the node", () -> heartbeat.report()),
                        new Step("count processing nodes", () -> heartbeat.countProcessing(true)),
                        new Step("sample trends", sampleTrends),
                        new Step("sample for drift", sampleDrift),
                        new Step("prune history", pruneHistory)),
                () -> engine.stopping(), troubles, stats);
    }

    /** A web node's sweep: its heartbeat and its row, and the count of the instances that refresh for it. */
    public static Sweep ofWebNode(InstanceHeartbeat heartbeat, BooleanSupplier stopping, Troubles troubles,
                                  EngineStats stats) {
        return new Sweep(List.of(new Step("heartbeat", () -> heartbeat.beat())),
                List.of(new Step("report the node", () -> heartbeat.report()),
                        new Step("count processing nodes", () -> heartbeat.countProcessing(true))),
                stopping, troubles, stats);
    }

    /** The names of the steps, in the order they run. */
    public List<String> stepNames() {
        return Stream.concat(steps.stream(), reports.stream()).map(Step::name).toList();
    }

    /** Whether a sweep is running now (its steps may still start a drainer). */
    public boolean running() {
        return running.get();
    }

    /** Runs one sweep, unless one is running or the engine stops. */
    public void run() {
        if (stopping.getAsBoolean() || !running.compareAndSet(false, true)) {
            return;
        }
        try {
            stats.sweepRan();
            steps.forEach(step -> step.action().run());
            for (Step report : reports) {
                try {
                    report.action().run();
                } catch (DatabaseTroubleException e) {
                    troubles.record(e);
                }
            }
        } catch (DatabaseTroubleException e) {
            troubles.record(e);
        } finally {
            troubles.report();
            running.set(false);
        }
    }

    static int reclaimLostSlots(Handoff handoff) {
        int lost = handoff.reclaimLostSlots();
        if (lost > 0) {
            LOG.warning("PRJ123: projection engine: " + lost + " drainer slot(s) were reserved but never ran; taken back");
        }
        return lost;
    }

    /** Starts a drainer when marks are due or a rebuild has a step to take; whether it asked for one. */
    static boolean startDrainer(BooleanSupplier dueWork, BooleanSupplier rebuildWork, Drainers drainers) {
        if (dueWork.getAsBoolean() || rebuildWork.getAsBoolean()) {
            drainers.startIfSlotFree(DrainerOrigin.SWEEP);
            return true;
        }
        return false;
    }
}
