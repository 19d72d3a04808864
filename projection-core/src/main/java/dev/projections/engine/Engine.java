package dev.projections.engine;

import dev.projections.RefreshListener;
import dev.projections.RefreshOutcome;
import dev.projections.config.Settings;
import dev.projections.inspect.AuditLog;
import dev.projections.inspect.PendingCounts;
import dev.projections.ops.AuditedRebuilds;
import dev.projections.ops.CatchUp;
import dev.projections.ops.MarkOperations;
import dev.projections.ops.Operations;
import dev.projections.ops.Overview;
import dev.projections.ops.PauseOperations;
import dev.projections.ops.RebuildOperations;
import dev.projections.ops.Reads;
import dev.projections.ops.Sql;
import dev.projections.refresh.DriftSampler;
import dev.projections.refresh.DrainerLauncher;
import dev.projections.refresh.DrainerOrigin;
import dev.projections.refresh.EngineStats;
import dev.projections.refresh.Handoff;
import dev.projections.refresh.InstanceHeartbeat;
import dev.projections.refresh.LifecycleAnnouncer;
import dev.projections.refresh.ProjectionCatalog;
import dev.projections.refresh.RebuildStepper;
import dev.projections.refresh.RefreshEngine;
import dev.projections.refresh.RefreshLag;
import dev.projections.refresh.RefreshObservers;
import dev.projections.refresh.Sweep;
import dev.projections.refresh.Transactions;
import dev.projections.refresh.WakeUpLook;
import dev.projections.refresh.WakeUpSignals;
import dev.projections.retention.HistoryPruner;
import dev.projections.store.Tables;
import dev.projections.trend.RefreshMinutes;
import dev.projections.trend.TrendSampler;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * One instance of the engine with all its parts, built in one place for the server, the unit tests and the
 * benchmarks ({@link EngineBuilder}): the store and SQL on the engine's datasource, the refresh loop, the rebuild
 * stepper, the drainer launcher and its hand-off, the heartbeat, the trend sampler and the sweep over them, and the
 * operations every face calls. What only the container knows comes in as one {@link Container}, whoever is told what
 * the engine does as one {@link Observers}.
 *
 * <pre>{@code
 * Engine engine = Engine.builder().dataSource(ds).projections(catalog)
 *         .container(PlainContainer.on(ds, executor)).build();
 * engine.drainers().committed(keys);     // after a commit
 * engine.sweep().run();                  // every projection.sweep-interval
 * engine.operations().marks().retry(projection, tenant, id, by);
 * engine.stop();
 * }</pre>
 */
public final class Engine {

    private static final Logger LOG = Logger.getLogger(Engine.class.getName());

    private final Settings settings;
    private final Clock clock;
    private final Tables store;
    private final Transactions transactions;
    private final EngineStats stats;
    private final Handoff handoff;
    private final RefreshEngine refresh;
    private final RebuildStepper rebuilds;
    private final DrainerLauncher drainers;
    private final InstanceHeartbeat heartbeat;
    private final TrendSampler trends;
    private final HistoryPruner history;
    private final Sweep sweep;
    private final WakeUpLook wakeUp;
    private final WakeUpSignals signals;
    private final LifecycleAnnouncer lifecycle;
    private final Container container;
    private final Operations operations;
    private final Reads reads;

    Engine(EngineBuilder b) {
        settings = b.settings;
        container = b.container;
        clock = container.clock();
        store = b.store;
        transactions = container.transactions();
        stats = b.stats;
        signals = b.signals;
        handoff = b.handoff;
        ProjectionCatalog catalog = b.projections;
        Observers observers = b.observers;
        lifecycle = new LifecycleAnnouncer(observers.lifecycle(), stats, clock, container.lifecycleThread());
        rebuilds = b.rebuildSteps
                ? new RebuildStepper(store, transactions, clock, catalog, container.tenantScope(),
                        projection -> settings.of(projection).rebuildPageSize(), settings.leaseTime(), lifecycle, stats)
                : null;
        refresh = new RefreshEngine(store, transactions, clock, settings, handoff, catalog, container.tenantScope(),
                new RefreshObservers(everyListener(b.refreshMinutes, observers.listeners()),
                        everyLag(b.refreshMinutes, observers.lag()), observers.tracing(), lifecycle, stats,
                        signals),
                rebuilds);
        drainers = new DrainerLauncher(handoff, refresh, stats, container.threads(), container.runAs(), b.troubles,
                b.unexpected, settings.processing());
        heartbeat = new InstanceHeartbeat(store.instances(), store.nodes(), () -> activity(catalog), transactions,
                clock, catalog, b.instanceId, settings.shortestLeaseTime(), // the clocks must fit the shortest
                stats, settings.processing(), settings.sweepInterval().multipliedBy(3)); // gone as on the instances page
        history = new HistoryPruner(new AuditLog(), store.endedRuns(), store.drift(),
                transactions, clock, b.instanceId, settings.retention());
        PendingCounts counts = new PendingCounts(store.dialect());
        trends = new TrendSampler(store.trends(), store.nodes(), counts, b.refreshMinutes,
                transactions, clock, catalog, b.instanceId, settings.trendRetention());
        sweep = rebuilds == null ? null
                : !settings.processing() ? Sweep.ofWebNode(heartbeat, refresh::stopping, b.troubles, stats)
                : Sweep.of(refresh, handoff, heartbeat, rebuilds, trends::sample, driftSampler(catalog)::sample,
                        history::prune, drainers, b.troubles, stats);
        wakeUp = sweep == null || !settings.processing() ? null
                : WakeUpLook.of(refresh, rebuilds, heartbeat, stats, clock, drainers);
        Sql sql = container.sql(b.dataSource, store);
        operations = rebuilds == null ? null
                : operations(sql, counts, b.dataSource, catalog, observers.pausesChanged());
        reads = operations == null ? null
                : new Reads(sql, store, clock, settings, stats, catalog, b.instanceId, operations.rebuilds());
    }

    /** The sweep's continuous drift sample of the projections that set {@code verify-per-minute}. */
    private DriftSampler driftSampler(ProjectionCatalog catalog) {
        return new DriftSampler(store, transactions, clock, catalog, container.tenantScope(),
                container.tenantDirectory().<Supplier<List<String>>>map(directory -> directory::tenants).orElse(null),
                projection -> settings.of(projection).verifyPerMinute(),
                projection -> settings.of(projection).rebuildPageSize(), settings.leaseTime(), stats, lifecycle);
    }

    public static EngineBuilder builder() {
        return new EngineBuilder();
    }

    private static final String STARTED_RUNS = Engine.class.getName() + ".started-runs";

    /**
     * The operations on this engine's parts: their SQL joins the caller's transaction where the datasource enlists
     * in one, and what they made due, paused or announced takes effect once that transaction committed.
     */
    private Operations operations(Sql sql, PendingCounts counts, DataSource dataSource,
                                  ProjectionCatalog catalog, Runnable pausesChanged) {
        MarkOperations marks = new MarkOperations(sql, store.actions(), counts, clock, catalog, () -> {
            signalMarks(sql);
            afterCommitDrain(() -> { });
        }, settings.sweepInterval().multipliedBy(3));
        PauseOperations pauses = new PauseOperations(sql, store.control(), clock, catalog,
                () -> container.afterCommit(pausesChanged), () -> {
                    signalMarks(sql);
                    afterCommitDrain(pausesChanged);
                },
                event -> container.afterCommit(() -> lifecycle.announce(event)));
        Supplier<List<String>> tenants = container.tenantDirectory().<Supplier<List<String>>>map(
                directory -> directory::tenants).orElse(null);
        RebuildOperations rebuildRuns = new RebuildOperations(sql, store, rebuilds, clock, catalog,
                container.tenantScope(), tenants, () -> container.<Set<String>>perTransaction(STARTED_RUNS, HashSet::new),
                // once the run committed, this instance's drainers look at the rebuild tables again
                () -> afterCommitDrain(rebuilds::runsMayExist), signals);
        Overview overview = new Overview(sql, dataSource, store, counts, clock, Clock.systemUTC(), catalog, stats,
                settings);
        AuditedRebuilds audited = new AuditedRebuilds(sql, rebuildRuns, catalog, clock);
        CatchUp catchUp = new CatchUp(Foundation.idleWaits(settings, sql, store), marks, catalog, settings,
                names -> container.afterCommit(() -> drainers.startIfSlotFree(DrainerOrigin.SWEEP, names)));
        return new Operations(marks, pauses, rebuildRuns, overview, audited, catchUp);
    }

    /**
     * Once the caller's transaction committed, runs {@code first}, then starts a drainer that looks at every
     * projection's due marks. The look names them all rather than reading which are paused: that read would run on
     * the completing thread, where a connection may not be had, and a copy of the pauses cached before the commit
     * would leave out a projection the transaction resumed (engine review E7).
     */
    /**
     * An operator's action made marks due (a retry, a resume): the other instances hear it in the caller's transaction,
     * as they hear a commit's marks (D55) — from a web node, whose own drainers start nothing, the processing instances
     * take them at once instead of at their next look.
     */
    private void signalMarks(Sql sql) {
        if (!signals.signalsMarks()) {
            return;
        }
        sql.call("signal the other instances", connection -> {
            signals.marksWritten(connection);
            return null;
        });
    }

    private void afterCommitDrain(Runnable first) {
        container.afterCommit(() -> {
            first.run();
            if (settings.autoRefresh()) {
                drainers.startIfSlotFreeForAny(DrainerOrigin.SWEEP);
            }
        });
    }

    /** The console's lag per minute first (it does not throw), then the caller's (in the server: the meter). */
    private static RefreshLag everyLag(RefreshMinutes minutes, RefreshLag caller) {
        return (key, firstMarkedAt, committedAt) -> {
            minutes.refreshed(key, firstMarkedAt, committedAt);
            caller.refreshed(key, firstMarkedAt, committedAt);
        };
    }

    /**
     * The console's refreshes/min and refresh rate first, then the caller's listeners in the order given (in the
     * server: the refresh timer, then the application's); each is told even when one before it threw, and the engine
     * logs and counts what they threw (docs/contract.md §6).
     */
    private RefreshListener everyListener(RefreshMinutes minutes, List<RefreshListener> callers) {
        List<RefreshListener> all = new ArrayList<>();
        all.add(minutes);
        all.add((key, outcome, took) -> {
            if (outcome != RefreshOutcome.FAILED) {
                stats.refreshRate().record(key.projection(), Instant.now());
            }
        });
        all.addAll(callers);
        return new EveryListener(all);
    }

    private InstanceHeartbeat.Activity activity(ProjectionCatalog catalog) {
        Instant now = Instant.now();
        long perMinute = catalog.names().stream().mapToLong(name -> stats.refreshRate().lastMinute(name, now)).sum();
        return new InstanceHeartbeat.Activity(settings.processing() ? settings.workers() : 0, handoff.inFlight(), refresh.claimsHeld(), perMinute);
    }

    /** Stops the refresh loop (unstarted claims are released at once), then writes the last minutes of trends. */
    public void stop() {
        refresh.stop();
        lifecycle.stop();
        if (!settings.processing()) {
            return; // a web node refreshed nothing and samples no trends
        }
        try {
            // what this instance counted of its last minutes: a process started again within the minute adds to it
            trends.flush();
        } catch (RuntimeException e) {
            LOG.warning("PRJ124: projection engine: the last minutes of trends could not be written at shutdown: " + e);
        }
    }

    public Settings settings() {
        return settings;
    }

    public Clock clock() {
        return clock;
    }

    public Tables store() {
        return store;
    }

    public Transactions transactions() {
        return transactions;
    }

    public EngineStats stats() {
        return stats;
    }

    public Handoff handoff() {
        return handoff;
    }

    /** Claim → refresh → ack. */
    public RefreshEngine refresh() {
        return refresh;
    }

    /** Where operations tell their lifecycle events, as the engine tells its own: counted and logged when they throw. */
    public LifecycleAnnouncer lifecycle() {
        return lifecycle;
    }

    /** The drainers' rebuild steps; {@code null} when built {@link EngineBuilder#withoutRebuildSteps without}. */
    public RebuildStepper rebuilds() {
        return rebuilds;
    }

    /** Where a commit, an operation or the sweep starts drainers. */
    public DrainerLauncher drainers() {
        return drainers;
    }

    public InstanceHeartbeat heartbeat() {
        return heartbeat;
    }

    /** The retention of the audit log and the rebuild runs, which the sweep runs. */
    public HistoryPruner history() {
        return history;
    }

    public TrendSampler trends() {
        return trends;
    }

    /** The sweep's steps over these parts; {@code null} when built without rebuild steps. */
    public Sweep sweep() {
        return sweep;
    }

    /**
     * An idle processing instance's look for the due marks of web nodes' commits, for the container to run every
     * {@code projection.wake-up-interval} (D54); {@code null} on a web node and when built without rebuild steps.
     */
    public WakeUpLook wakeUpLook() {
        return wakeUp;
    }

    /**
     * The operations every face calls (marks, pauses, rebuild runs, the overview, the audited actions); {@code null}
     * when built without rebuild steps.
     */
    public Operations operations() {
        return operations;
    }

    /**
     * What an operator reads, for every face (mark pages, counts, errors, tenants, trends, lags, instances, audit,
     * partitions); {@code null} when built without rebuild steps.
     */
    public Reads reads() {
        return reads;
    }

    /** What the engine runs in: its transactions, threads, after-commit work, tenants and clock. */
    public Container container() {
        return container;
    }
}
