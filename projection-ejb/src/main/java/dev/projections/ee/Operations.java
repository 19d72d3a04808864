package dev.projections.ee;

import dev.projections.TenantDirectory;
import dev.projections.TenantScope;
import dev.projections.ops.AuditedActions;
import dev.projections.ops.MarkOperations;
import dev.projections.ops.Overview;
import dev.projections.ops.PauseOperations;
import dev.projections.ops.RebuildOperations;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import jakarta.transaction.Status;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.util.HashSet;
import java.util.Set;

/**
 * The engine's operations (package {@code dev.projections.ops}) with the container's parts: SQL joins the caller's
 * JTA transaction, and what an action made due starts a drainer once that transaction commits.
 */
@ApplicationScoped
public class Operations {

    @Inject
    EngineResources resources;

    @Inject
    ProjectionRegistry registry;

    @Inject
    AfterCommitDrainer drainer;

    @Inject
    PauseState pauseState;

    @Inject
    EngineRuntime runtime;

    @Inject
    LifecycleEvents lifecycleEvents;

    @Inject
    Instance<TenantDirectory> tenantDirectory;

    @Inject
    Instance<TenantScope> tenantScope;

    @Resource
    TransactionSynchronizationRegistry transactions;

    private static final String STARTED_RUNS = Operations.class.getName() + ".started-runs";

    private MarkOperations marks;
    private PauseOperations pauses;
    private RebuildOperations rebuilds;
    private Overview overview;
    private AuditedActions audited;

    @PostConstruct
    void build() {
        marks = new MarkOperations(resources.sql(), resources.store(), resources.counts(), resources.clock(), registry,
                drainer::start);
        // the cached pauses are forgotten once the change committed: forgotten before, a drainer's read in between
        // would cache the old state again (engine review E7)
        pauses = new PauseOperations(resources.sql(), resources.store(), resources.clock(), registry,
                () -> drainer.afterCommitted(pauseState::invalidate), () -> drainer.afterCommit(pauseState::invalidate),
                lifecycleEvents::afterCommit);
        rebuilds = new RebuildOperations(resources.sql(), resources.store(), runtime.rebuilds(), resources.clock(),
                registry, tenantScope.isResolvable() ? tenantScope.get() : TenantScope.NONE,
                tenantDirectory.isResolvable() ? () -> tenantDirectory.get().tenants() : null, this::startedRuns,
                // once the run committed, this instance's drainers look at the rebuild tables again
                () -> drainer.afterCommit(() -> runtime.rebuilds().runsMayExist()));
        overview = new Overview(resources.sql(), resources.dataSource(), resources.store(), resources.counts(),
                resources.clock(), java.time.Clock.systemUTC(), registry, resources.stats(), resources.settings());
        audited = new AuditedActions(resources.sql(), marks, pauses, rebuilds, registry, resources.clock(),
                resources.settings().sweepInterval().multipliedBy(3));
    }

    public MarkOperations marks() {
        return marks;
    }

    public PauseOperations pauses() {
        return pauses;
    }

    public RebuildOperations rebuilds() {
        return rebuilds;
    }

    public Overview overview() {
        return overview;
    }

    /** An operator's actions, each with its audit row in the caller's transaction. */
    public AuditedActions audited() {
        return audited;
    }

    /** The runs this thread's transaction started, kept as a resource of that transaction. */
    @SuppressWarnings("unchecked")
    private Set<String> startedRuns() {
        if (transactions.getTransactionStatus() == Status.STATUS_NO_TRANSACTION) {
            return new HashSet<>();
        }
        Set<String> started = (Set<String>) transactions.getResource(STARTED_RUNS);
        if (started == null) {
            started = new HashSet<>();
            transactions.putResource(STARTED_RUNS, started);
        }
        return started;
    }
}
