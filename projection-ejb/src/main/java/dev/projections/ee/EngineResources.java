package dev.projections.ee;

import dev.projections.config.SettingSource;
import dev.projections.config.Settings;
import dev.projections.marking.ProjectedUnits;
import dev.projections.refresh.AdjustableClock;
import dev.projections.refresh.EngineStats;
import dev.projections.inspect.PendingCounts;
import dev.projections.ops.Sql;
import dev.projections.store.Tables;
import dev.projections.store.TableSchema;
import dev.projections.trend.RefreshMinutes;
import dev.projections.freshness.IdleWaits;
import dev.projections.freshness.RefreshWaits;
import dev.projections.freshness.TestSupportSwitch;
import dev.projections.refresh.LeaseMargin;
import dev.projections.spi.RefreshTracing;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.transaction.Status;
import jakarta.transaction.TransactionSynchronizationRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import javax.naming.InitialContext;
import javax.sql.DataSource;

/** The engine's plain objects, built once per deployment from the settings. */
@ApplicationScoped
public class EngineResources implements TestSupportSwitch {

    private SettingSource settingSource;
    private Settings settings;
    private DataSource dataSource;
    private EngineDatasource engineDatasource;
    private TableSchema tables;
    private Tables store;
    private Sql sql;
    private PendingCounts counts;
    private RefreshWaits waits;
    private IdleWaits idleWaits;
    private final AdjustableClock clock = new AdjustableClock();
    private final EngineStats stats = new EngineStats();
    private String instanceId;
    private final RefreshMinutes refreshMinutes = new RefreshMinutes(clock);

    /** {@code projection-opentelemetry}'s, where the application deploys it; looked up when first needed. */
    @jakarta.inject.Inject
    jakarta.enterprise.inject.Instance<RefreshTracing> tracers;

    private volatile RefreshTracing tracing;

    @PostConstruct
    void init() {
        settingSource = DeploymentSettings.source(); // read once: the per-projection settings come from the same
        settings = Settings.load(settingSource);
        // unset, the datasource of the units with @Projected entities that have started (on WildFly: all of the
        // application's, as its components wait for them), else the default (docs/design.md D35)
        engineDatasource = EngineDatasource.choose(settings.datasource(), ProjectedUnits.units(),
                name -> (DataSource) new InitialContext().lookup(name), DatasourceNames::of);
        DataSource server = engineDatasource.dataSource();
        tables = TableSchema.of(settings.tableSchema());
        // every statement of the engine, the console and the facade goes through it: the product's tables in their
        // schema when projection.table-schema is set, the server's datasource itself when not (docs/design.md D34)
        dataSource = tables.dataSource(server);
        instanceId = dev.projections.store.NodeTable.checkInstanceId(instanceName(),
                "jboss.node.name (else the host name)");
        store = Tables.forDatabase(dataSource, instanceId);
        sql = Sql.on(dataSource, store);
        counts = new PendingCounts(store.dialect());
        ProjectedUnits.checkEach(unit -> UnitDatasourceCheck.require(unit, engineDatasource, DatasourceNames::of));
        // the lease margin of the global lease: the clocks the check compares are kept within the shortest one's
        waits = new RefreshWaits(clock, settings.awaits(), LeaseMargin.of(settings.leaseTime()),
                (keys, committedAt, margin) -> sql.call("check a read-your-writes wait",
                        connection -> store.checks().stillPending(connection, keys, committedAt, margin)),
                this::inTransaction, checkThreads);
        if (!settings.enabled()) {
            waits.stop(); // a disabled engine refreshes nothing: no wait waits
        }
        lifecycleThread = new java.util.concurrent.ThreadPoolExecutor(1, 1, 0, java.util.concurrent.TimeUnit.SECONDS,
                new java.util.concurrent.LinkedBlockingQueue<>(), runnable -> {
                    Thread thread = checkThreads.newThread(runnable);
                    thread.setName("projection-lifecycle");
                    return thread;
                });
        lifecycleThread.prestartCoreThread(); // now, with the container's context
        if (settings.testSupport()) {
            java.util.logging.Logger.getLogger(EngineResources.class.getName()).warning(Settings.TEST_SUPPORT
                    + "=true: /projections/test/idle and /projections/test/refresh answer anyone who reaches them, "
                    + "without a login; for tests only, never in production");
        }
        idleWaits = new IdleWaits(settings.awaits().maxTimeout(), projections -> sql.call("check for marks left",
                connection -> {
                    java.util.Set<String> left = new java.util.TreeSet<>();
                    for (String projection : projections) {
                        if (store.checks().hasMarks(connection, projection)) {
                            left.add(projection);
                        }
                    }
                    return left;
                }));
    }

    @Override
    public boolean testSupportEnabled() {
        return settings.testSupport();
    }

    /** The test support's waits for projections with no mark left (docs/contract.md §14). */
    public IdleWaits idleWaits() {
        return idleWaits;
    }

    @PreDestroy
    void stopThreads() {
        if (waits != null) {
            waits.stop();
        }
        if (lifecycleThread != null) {
            lifecycleThread.shutdownNow(); // the engine's stop told what was queued before
        }
    }

    @Resource
    TransactionSynchronizationRegistry transactions;

    /** The read-your-writes checks' threads: a wait stops waiting for a check at its deadline (docs/contract.md §14). */
    @Resource
    jakarta.enterprise.concurrent.ManagedThreadFactory checkThreads;

    private java.util.concurrent.ThreadPoolExecutor lifecycleThread;

    /**
     * The thread the engine tells its lifecycle events on: one of the container's managed threads, started here with
     * the deployment so that it carries the container's context, not that of the first caller that announces an event
     * (an operator's request); ended with the deployment.
     */
    public java.util.concurrent.Executor lifecycleThread() {
        return lifecycleThread;
    }

    private boolean inTransaction() {
        int status = transactions.getTransactionStatus();
        return status == Status.STATUS_ACTIVE || status == Status.STATUS_MARKED_ROLLBACK;
    }

    /** Read-your-writes waits: the captures of committing threads and the threads waiting (docs/contract.md §14). */
    public RefreshWaits waits() {
        return waits;
    }

    /** The same for the application's modules: the JAX-RS header filter, a class of the EAR's lib, looks it up. */
    @jakarta.enterprise.inject.Produces
    RefreshWaits producedWaits() {
        return waits;
    }

    public Settings settings() {
        return settings;
    }

    /**
     * Where the settings were read from, as read at start-up; each projection's own come from it too
     * ({@code ProjectionRegistry.settings()}), and the console names each value's origin from it.
     */
    public SettingSource settingSource() {
        return settingSource;
    }

    /** The projection datasource, its connections naming the product's tables in {@link #tables()}. */
    public DataSource dataSource() {
        return dataSource;
    }

    /** The engine's datasource's JNDI name ({@code projection.datasource}, a unit's or the default), for messages. */
    public String dataSourceName() {
        return engineDatasource.name();
    }

    /** The schema of the product's tables ({@code projection.table-schema}). */
    public TableSchema tables() {
        return tables;
    }

    public Tables store() {
        return store;
    }

    /** The counts of the pending table that the gauges read. */
    public PendingCounts counts() {
        return counts;
    }

    /** The engine's clock; tests move it forward to expire leases and backoffs without sleeping. */
    public AdjustableClock clock() {
        return clock;
    }

    public EngineStats stats() {
        return stats;
    }

    /** This instance's name in {@code projection_instance}, {@code projection_node} and beside its claims. */
    public String instanceId() {
        return instanceId;
    }

    /**
     * How refreshes are traced (docs/contract.md §9, tracing): the bean of {@code projection-opentelemetry} when the
     * application deploys it, else not at all. The bean is created here, at the engine's start (not inside the first
     * business commit); one that cannot be created leaves refreshes untraced.
     */
    public RefreshTracing tracing() {
        RefreshTracing found = tracing;
        if (found == null) {
            found = RefreshTracing.NONE;
            if (tracers.isResolvable()) {
                try {
                    RefreshTracing bean = tracers.get();
                    bean.enabled();
                    found = bean;
                } catch (RuntimeException | LinkageError e) {
                    java.util.logging.Logger.getLogger(EngineResources.class.getName()).log(java.util.logging.Level.WARNING,
                            "the tracing of refreshes could not start; refreshes are not traced", e);
                }
            }
            tracing = found;
        }
        return found;
    }

    /** This instance's refreshes per projection and minute, which the sweep writes as trends. */
    public RefreshMinutes refreshMinutes() {
        return refreshMinutes;
    }

    /** This server's node name (unique per instance of a cluster or domain), else its host name. */
    private static String instanceName() {
        String node = System.getProperty("jboss.node.name");
        if (node != null && !node.isBlank()) {
            return node;
        }
        try {
            return java.net.InetAddress.getLocalHost().getHostName();
        } catch (java.net.UnknownHostException e) {
            return "unknown-host";
        }
    }
}
