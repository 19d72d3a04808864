package dev.projections.ee;

import dev.projections.config.SettingSource;
import dev.projections.config.Settings;
import dev.projections.engine.Foundation;
import dev.projections.engine.Once;
import dev.projections.freshness.RefreshWaits;
import dev.projections.freshness.TestSupportSwitch;
import dev.projections.marking.ProjectedUnits;
import dev.projections.spi.RefreshTracing;
import dev.projections.store.NodeTable;
import dev.projections.store.TableSchema;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedThreadFactory;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;
import jakarta.transaction.Status;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;
import javax.naming.InitialContext;
import javax.sql.DataSource;

/**
 * What only the container knows, read once per deployment: the settings' source, the engine's datasource among the
 * server's, the schema of the product's tables, this node's name, the threads made with the deployment's context and
 * the tracing bean; from them core's {@link Foundation}, which the beans that need its parts inject.
 */
@ApplicationScoped
public class EngineResources implements TestSupportSwitch {

    private SettingSource settingSource;
    private Settings settings;
    private EngineDatasource engineDatasource;
    private TableSchema tables;
    private Foundation foundation;

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
        tables = TableSchema.of(settings.tableSchema());
        ProjectedUnits.checkEach(unit -> UnitDatasourceCheck.require(unit, engineDatasource, DatasourceNames::of));
        // every statement of the engine, the console and the facade goes through it: the product's tables in their
        // schema when projection.table-schema is set, the server's datasource itself when not (docs/design.md D34)
        foundation = new Foundation(settings, tables.dataSource(engineDatasource.dataSource()),
                NodeTable.checkInstanceId(Foundation.instanceName(System.getProperty("jboss.node.name")),
                        "jboss.node.name (else the host name)"),
                this::inTransaction, checkThreads);
        lifecycleThread = new ThreadPoolExecutor(1, 1, 0, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(), runnable -> {
                    Thread thread = checkThreads.newThread(runnable);
                    thread.setName("projection-lifecycle");
                    return thread;
                });
        lifecycleThread.prestartCoreThread(); // now, with the container's context
        if (settings.testSupport()) {
            Logger.getLogger(EngineResources.class.getName()).warning("PRJ304: " + Settings.TEST_SUPPORT
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
        if (foundation != null) {
            foundation.stop();
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

    /** The instance's parts, built at the deployment's start. */
    public Foundation foundation() {
        return foundation;
    }

    /** The same for the beans that use its parts and nothing else of the container's. */
    @Produces
    Foundation producedFoundation() {
        return foundation;
    }

    /** The waits for the application's modules: the JAX-RS header filter, a class of the EAR's lib, looks them up. */
    @Produces
    RefreshWaits producedWaits() {
        return foundation.waits();
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

    /** The engine's datasource's JNDI name ({@code projection.datasource}, a unit's or the default), for messages. */
    public String dataSourceName() {
        return engineDatasource.name();
    }

    /** The schema of the product's tables ({@code projection.table-schema}). */
    public TableSchema tables() {
        return tables;
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
                        "PRJ406: the tracing of refreshes could not start; refreshes are not traced", e);
            }
        }
        return RefreshTracing.NONE;
    }
}
