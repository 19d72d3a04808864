package dev.projections.engine;

import dev.projections.lifecycle.LifecycleListener;
import dev.projections.refresh.LifecycleAnnouncer;

import dev.projections.RefreshListener;
import dev.projections.RefreshOutcome;
import dev.projections.TenantScope;
import dev.projections.config.Settings;
import dev.projections.inspect.AuditLog;
import dev.projections.inspect.PendingCounts;
import dev.projections.refresh.DatabaseTroubleLog;
import dev.projections.refresh.DrainerLauncher;
import dev.projections.refresh.EngineStats;
import dev.projections.refresh.Handoff;
import dev.projections.refresh.InstanceHeartbeat;
import dev.projections.refresh.JdbcTransactions;
import dev.projections.refresh.ProjectionCatalog;
import dev.projections.refresh.RebuildStepper;
import dev.projections.refresh.RefreshEngine;
import dev.projections.refresh.RefreshLag;
import dev.projections.refresh.RefreshTracing;
import dev.projections.refresh.Sweep;
import dev.projections.refresh.Transactions;
import dev.projections.retention.HistoryPruner;
import dev.projections.store.Tables;
import dev.projections.trend.RefreshMinutes;
import dev.projections.trend.TrendSampler;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * One instance of the engine with all its parts, built in one place for the server, the unit tests and the
 * benchmarks: the store and transactions on a {@code DataSource}, the refresh loop, the rebuild stepper, the drainer
 * launcher and its hand-off, the heartbeat, the trend sampler and the sweep over them. The server gives it JTA
 * transactions, the drainer pool's threads and an EJB door for the drainers' identity; outside a server plain JDBC
 * transactions and any executor do.
 *
 * <pre>{@code
 * Engine engine = Engine.builder().dataSource(ds).projections(catalog).threads(executor).build();
 * engine.drainers().committed(keys);     // after a commit
 * engine.sweep().run();                  // every projection.sweep-interval
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
    private final LifecycleAnnouncer lifecycle;

    private Engine(Builder b) {
        settings = b.settings;
        clock = b.clock;
        store = b.store;
        transactions = b.transactions;
        stats = b.stats;
        handoff = b.handoff;
        ProjectionCatalog catalog = b.projections;
        lifecycle = new LifecycleAnnouncer(b.lifecycle, stats, clock, b.lifecycleThread);
        rebuilds = b.rebuildSteps
                ? new RebuildStepper(store, transactions, clock, catalog, b.tenantScope,
                        projection -> settings.of(projection).rebuildPageSize(), settings.leaseTime(), lifecycle)
                : null;
        refresh = new RefreshEngine(store, transactions, clock, settings, handoff, catalog, b.tenantScope,
                everyListener(b), everyLag(b), b.tracing, stats, rebuilds, lifecycle);
        drainers = new DrainerLauncher(handoff, refresh, stats, b.threads, b.runAs, b.troubles, b.unexpected);
        heartbeat = new InstanceHeartbeat(store.instances(), store.nodes(), () -> activity(catalog), transactions,
                clock, catalog, b.instanceId, settings.shortestLeaseTime(), stats); // the clocks must fit the shortest
        history = new HistoryPruner(new AuditLog(), store.rebuildRuns(),
                transactions, clock, b.instanceId, settings.retention());
        trends = new TrendSampler(store.trends(), store.nodes(), new PendingCounts(store.dialect()), b.refreshMinutes,
                transactions, clock, catalog, b.instanceId, settings.trendRetention());
        sweep = rebuilds == null ? null
                : Sweep.of(refresh, handoff, heartbeat, rebuilds, trends::sample, history::prune, drainers, b.troubles,
                        stats);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The console's lag per minute first (it does not throw), then the caller's (in the server: the meter). */
    private static RefreshLag everyLag(Builder b) {
        RefreshMinutes minutes = b.refreshMinutes;
        RefreshLag caller = b.lag;
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
    private static RefreshListener everyListener(Builder b) {
        List<RefreshListener> all = new ArrayList<>();
        all.add(b.refreshMinutes);
        all.add((key, outcome, took) -> {
            if (outcome != RefreshOutcome.FAILED) {
                b.stats.refreshRate().record(key.projection(), Instant.now());
            }
        });
        all.addAll(b.listeners);
        return new EveryListener(all);
    }

    private InstanceHeartbeat.Activity activity(ProjectionCatalog catalog) {
        Instant now = Instant.now();
        long perMinute = catalog.names().stream().mapToLong(name -> stats.refreshRate().lastMinute(name, now)).sum();
        return new InstanceHeartbeat.Activity(settings.workers(), handoff.inFlight(), refresh.claimsHeld(), perMinute);
    }

    /** Stops the refresh loop (unstarted claims are released at once), then writes the last minutes of trends. */
    public void stop() {
        refresh.stop();
        lifecycle.stop();
        try {
            // what this instance counted of its last minutes: a process started again within the minute adds to it
            trends.flush();
        } catch (RuntimeException e) {
            LOG.warning("projection engine: the last minutes of trends could not be written at shutdown: " + e);
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

    /** The drainers' rebuild steps; {@code null} when built {@link Builder#withoutRebuildSteps without}. */

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

    /** What an engine is built from; {@link #dataSource} (or a store and transactions), the projections and threads. */
    public static final class Builder {
        private DataSource dataSource;
        private Tables store;
        private Transactions transactions;
        private Clock clock = Clock.systemUTC();
        private Settings settings;
        private ProjectionCatalog projections;
        private Executor threads;
        private DrainerLauncher.RunAs runAs = DrainerLauncher.RunAs.CALLER;
        private TenantScope tenantScope = TenantScope.NONE;
        private final List<RefreshListener> listeners = new ArrayList<>();
        private EngineStats stats;
        private Handoff handoff;
        private String instanceId;
        private Sweep.Troubles troubles;
        private Consumer<RuntimeException> unexpected = e -> { };
        private RefreshMinutes refreshMinutes;
        private boolean rebuildSteps = true;

        private Builder() {
        }

        /** The projection datasource: the store's dialect is read from it, and plain JDBC transactions run on it. */
        public Builder dataSource(DataSource dataSource) {
            this.dataSource = dataSource;
            return this;
        }

        /** A store made elsewhere (shared by several engines on one database); default: one on the datasource. */
        public Builder store(Tables store) {
            this.store = store;
            return this;
        }

        /** The server's JTA transactions; default: {@link JdbcTransactions} on the datasource. */
        public Builder transactions(Transactions transactions) {
            this.transactions = transactions;
            return this;
        }

        public Builder clock(Clock clock) {
            this.clock = clock;
            return this;
        }

        /** Default: every setting at its default. */
        public Builder settings(Settings settings) {
            this.settings = settings;
            return this;
        }

        public Builder projections(ProjectionCatalog projections) {
            this.projections = projections;
            return this;
        }

        /** Where drainers run: at least {@code projection.workers} threads, used by nothing that could starve them. */
        public Builder threads(Executor threads) {
            this.threads = threads;
            return this;
        }

        /** The identity drainers run under on the thread they are given; default: the thread's own. */
        public Builder runAs(DrainerLauncher.RunAs runAs) {
            this.runAs = runAs;
            return this;
        }

        public Builder tenantScope(TenantScope tenantScope) {
            this.tenantScope = tenantScope;
            return this;
        }

        private RefreshLag lag = RefreshLag.NONE;

        /** Told of each committed refresh's lag (the meter {@code projection.lag}); none by default. */
        public Builder lag(RefreshLag lag) {
            this.lag = lag;
            return this;
        }

        private RefreshTracing tracing = RefreshTracing.NONE;
        private LifecycleListener lifecycle = LifecycleListener.NONE;
        private Executor lifecycleThread = runnable -> {
            Thread thread = new Thread(runnable, "projection-lifecycle");
            thread.setDaemon(true); // an engine never stopped does not keep the JVM alive
            thread.start();
        };

        /**
         * Runs the loop that tells lifecycle events, so that a slow observer holds no engine thread (in the server: a
         * thread of the container's managed thread factory, started with the deployment); default: a daemon thread.
         */
        public Builder lifecycleThread(Executor lifecycleThread) {
            this.lifecycleThread = Objects.requireNonNull(lifecycleThread, "lifecycleThread");
            return this;
        }

        /** Told of each lifecycle event after the commit that made it true (in the server: the CDI events). */
        public Builder lifecycle(LifecycleListener lifecycle) {
            this.lifecycle = lifecycle;
            return this;
        }

        /** Traces each refresh, linked to the business transactions of its marks; none by default. */
        public Builder tracing(RefreshTracing tracing) {
            this.tracing = tracing;
            return this;
        }

        /** Told after each refresh, after the engine's own listeners; may be called more than once. */
        public Builder listener(RefreshListener listener) {
            listeners.add(listener);
            return this;
        }

        /** Counters shared with whoever reads them (the gauges, the overview); default: new ones. */
        public Builder stats(EngineStats stats) {
            this.stats = stats;
            return this;
        }

        /** Default: {@link Handoff#of} the settings. */
        public Builder handoff(Handoff handoff) {
            this.handoff = handoff;
            return this;
        }

        /** This instance's name beside its claims and in the instances' table; default: the host name. */
        public Builder instanceId(String instanceId) {
            this.instanceId = instanceId;
            return this;
        }

        /** Where database trouble is counted and reported once per sweep; default: a {@link DatabaseTroubleLog}. */
        public Builder troubles(Sweep.Troubles troubles) {
            this.troubles = troubles;
            return this;
        }

        /** Told what a drainer ended on besides database trouble, after it was logged; default: nobody. */
        public Builder unexpected(Consumer<RuntimeException> unexpected) {
            this.unexpected = unexpected;
            return this;
        }

        /** This instance's refreshes per minute, which the trends write; default: new ones on the clock. */
        public Builder refreshMinutes(RefreshMinutes refreshMinutes) {
            this.refreshMinutes = refreshMinutes;
            return this;
        }

        /** Drainers only refresh, and there is no sweep (tests and benchmarks of the refresh loop alone). */
        public Builder withoutRebuildSteps() {
            this.rebuildSteps = false;
            return this;
        }

        public Engine build() {
            Objects.requireNonNull(projections, "projections");
            Objects.requireNonNull(threads, "threads");
            if (dataSource == null && (store == null || transactions == null)) {
                throw new IllegalStateException("an engine needs a dataSource, or both a store and transactions");
            }
            if (settings == null) { // as the server reads them, each projection's own too (no deployment file here)
                dev.projections.config.SettingSource source = dev.projections.config.SettingSource.standard(
                        System.getProperties(), System.getenv(), new Properties());
                settings = dev.projections.config.ProjectionSettings.resolve(Settings.load(source), source,
                        projections.names().stream().map(projections::byName).toList());
            }
            if (instanceId == null) {
                instanceId = hostName();
            }
            if (store == null) {
                store = Tables.forDatabase(dataSource, instanceId);
            }
            if (transactions == null) {
                transactions = new JdbcTransactions(dataSource);
            }
            if (stats == null) {
                stats = new EngineStats();
            }
            if (handoff == null) {
                handoff = Handoff.of(settings);
            }
            if (troubles == null) {
                troubles = new DatabaseTroubleLog();
            }
            if (refreshMinutes == null) {
                refreshMinutes = new RefreshMinutes(clock);
            }
            return new Engine(this);
        }

        private static String hostName() {
            try {
                return java.net.InetAddress.getLocalHost().getHostName();
            } catch (java.net.UnknownHostException e) {
                return "unknown-host";
            }
        }
    }
}
