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
import dev.projections.freshness.RefreshWaits;
import dev.projections.freshness.TestSupportSwitch;
import dev.projections.engine.Waits;
import dev.projections.spi.RefreshTracing;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.transaction.Status;
import jakarta.transaction.TransactionSynchronizationRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import javax.naming.InitialContext;
import javax.sql.DataSource;
import java.util.logging.Logger;
import java.util.logging.Level;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Executor;
import java.net.UnknownHostException;
import java.net.InetAddress;
import jakarta.inject.Inject;
import jakarta.enterprise.inject.Produces;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.concurrent.ManagedThreadFactory;
import dev.projections.store.NodeTable;
import dev.projections.engine.Once;

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
    private final AdjustableClock clock = new AdjustableClock();
    private final EngineStats stats = new EngineStats();
    private String instanceId;
    private final RefreshMinutes refreshMinutes = new RefreshMinutes(clock);

    /** {@code projection-opentelemetry}'s, where the application deploys it; looked up when first needed. */
    @Inject
    Instance<RefreshTracing> tracers;

    private final Once<RefreshTracing> tracing = Once.of(this::lookUpTracing);

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
        instanceId = NodeTable.checkInstanceId(instanceName(),
                "jboss.node.name (else the host name)");
        store = Tables.forDatabase(dataSource, instanceId);
        sql = Sql.on(dataSource, store);
        counts = new PendingCounts(store.dialect());
        ProjectedUnits.checkEach(unit -> UnitDatasourceCheck.require(unit, engineDatasource, DatasourceNames::of));
        waits = Waits.readYourWrites(settings, clock, sql, store, this::inTransaction, checkThreads);
        lifecycleThread = new ThreadPoolExecutor(1, 1, 0, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(), runnable -> {
                    Thread thread = checkThreads.newThread(runnable);
                    thread.setName("projection-lifecycle");
                    return thread;
                });
        lifecycleThread.prestartCoreThread(); // now, with the container's context
        if (settings.testSupport()) {
            Logger.getLogger(EngineResources.class.getName()).warning(Settings.TEST_SUPPORT
                    + "=true: /projections/test/idle and /projections/test/refresh answer anyone who reaches them, "
                    + "without a login; for tests only, never in production");
        }
    }

    @Override
    public boolean testSupportEnabled() {
        return settings.testSupport();
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
    ManagedThreadFactory checkThreads;

    private ThreadPoolExecutor lifecycleThread;

    /**
     * The thread the engine tells its lifecycle events on: one of the container's managed threads, started here with
     * the deployment so that it carries the container's context, not that of the first caller that announces an event
     * (an operator's request); ended with the deployment.
     */
    public Executor lifecycleThread() {
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
    @Produces
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
        return tracing.get();
    }

    private RefreshTracing lookUpTracing() {
        if (tracers.isResolvable()) {
            try {
                RefreshTracing bean = tracers.get();
                bean.enabled();
                return bean;
            } catch (RuntimeException | LinkageError e) {
                Logger.getLogger(EngineResources.class.getName()).log(Level.WARNING,
                        "the tracing of refreshes could not start; refreshes are not traced", e);
            }
        }
        return RefreshTracing.NONE;
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
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "unknown-host";
        }
    }
}
