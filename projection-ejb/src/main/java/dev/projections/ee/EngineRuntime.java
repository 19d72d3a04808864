package dev.projections.ee;

import dev.projections.engine.Foundation;
import dev.projections.RefreshListener;
import dev.projections.TenantDirectory;
import dev.projections.TenantScope;
import dev.projections.engine.Engine;
import dev.projections.engine.EveryListener;
import dev.projections.engine.Observers;
import dev.projections.engine.Once;
import dev.projections.ops.AuditedRebuilds;
import dev.projections.ops.MarkOperations;
import dev.projections.ops.Operations;
import dev.projections.ops.PauseOperations;
import dev.projections.metrics.LagTimer;
import jakarta.annotation.Resource;
import jakarta.ejb.EJB;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Dependent;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.Produces;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.inject.Inject;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.util.ArrayList;
import java.util.List;

/**
 * The deployment's {@link Engine}, built once by core's builder from the container ({@link ServerContainer}: JTA
 * transactions, the {@link DrainerPool}'s threads, the {@link Drainer} EJB for the drainers' identity, after-commit
 * work, the tenant beans) and its observers (the refresh timer and every {@link RefreshListener} bean of the
 * application, the lag meter, tracing, the CDI lifecycle events, the cached pauses); the one door to its parts and
 * operations.
 */
@ApplicationScoped
public class EngineRuntime {

    @Inject
    EngineResources resources;


    @Inject
    Foundation foundation;

    @Inject
    ProjectionRegistry registry;

    @Inject
    JtaTransactions transactions;

    @Inject
    Instance<TenantScope> tenantScope;

    @Inject
    Instance<RefreshListener> listeners;

    @Inject
    EngineMetrics metrics;

    /**
     * The engine's lifecycle events become CDI events of the application (docs/contract.md §6, §7): a synchronous fire
     * of the event's record, so {@code @Observes MarkParked} in any bean of the deployment sees it. The engine tells
     * each on its one lifecycle thread (a managed thread, outside any transaction), in order, once the change
     * committed, never from a transaction's completion, where an observer could not call a {@code REQUIRED} EJB
     * (docs/pitfalls.md #5); what an observer throws is caught by the engine's announcer: logged, counted, the change
     * stands.
     */
    @Inject
    BeanManager beanManager;

    @EJB
    DrainerPool pool;

    @EJB
    Drainer drainer;

    @Inject
    Instance<TenantDirectory> tenantDirectory;

    @Inject
    PauseState pauseState;

    @Resource
    TransactionSynchronizationRegistry synchronizations;

    private volatile Engine assembled;

    /**
     * The engine's parts, built at the first call — which may be a committing thread's, after its commit, under the
     * application's identity: so building creates no bean of the application's. The {@code RefreshListener} beans,
     * the {@code TenantScope} bean and the refresh timer are looked up at their first use, on a drainer's thread, as
     * they were when the engine was built by the first drainer.
     */
    public Engine assembled() {
        Engine engine = assembled;
        if (engine == null) {
            synchronized (this) {
                engine = assembled;
                if (engine == null) {
                    engine = build();
                    assembled = engine;
                }
            }
        }
        return engine;
    }

    /** The engine if it was built, else {@code null}: for work that must not be the one to build it. */
    public Engine ifBuilt() {
        return assembled;
    }

    /**
     * Stops the engine if it was built. One never built (a deployment with {@code projection.enabled=false}, or
     * undeployed before its first sweep or commit) has nothing to stop, and building it now would touch beans the
     * container is already stopping.
     */
    public synchronized void stopIfBuilt() { // waits for a build in progress, and stops what it built
        Engine engine = assembled;
        if (engine != null) {
            engine.stop();
        }
    }

    private Engine build() {
        return Engine.builder()
                .foundation(foundation)
                .container(new ServerContainer(transactions, pool.executor(), drainer::run, resources.lifecycleThread(),
                        synchronizations, tenantScope, tenantDirectory, foundation.clock()))
                .observers(Observers.NONE
                        .tracing(resources.tracing())
                        .lifecycle(event -> beanManager.getEvent().fire(event))
                        .pausesChanged(pauseState::invalidate)
                        .lag((key, firstMarkedAt, committedAt) -> lagTimer.get().refreshed(key, firstMarkedAt, committedAt))
                        .listener((key, outcome, took) -> {
                            foundation.waits().refreshed(key, outcome); // only wakes waiting threads, never throws
                            applicationListeners.get().refreshed(key, outcome, took);
                        }))
                .settings(registry.settings())
                .projections(registry)
                .build();
    }

    /** The meters' lag timer, looked up once (not through the metrics bean's proxy at every refresh). */
    private final Once<LagTimer> lagTimer = Once.of(() -> metrics.lagTimer());

    /** The refresh timer, then every {@link RefreshListener} bean of the application, each told whatever the others do. */
    private final Once<RefreshListener> applicationListeners = Once.of(() -> {
        List<RefreshListener> all = new ArrayList<>();
        all.add(metrics.refreshTimer());
        listeners.forEach(all::add);
        return new EveryListener(all);
    });

    /** The operations every face calls: the console, the management API, the application's facade. */
    public Operations operations() {
        return assembled().operations();
    }

    /* The operations the console's door calls, each injected as itself (no getter on the way): the engine is built
       at the first use of any. */

    @Produces
    @Dependent
    MarkOperations producedMarks() {
        return operations().marks();
    }

    @Produces
    @Dependent
    PauseOperations producedPauses() {
        return operations().pauses();
    }

    @Produces
    @Dependent
    AuditedRebuilds producedRebuilds() {
        return operations().audited();
    }
}
