package dev.projections.ee;

import dev.projections.TenantDirectory;
import dev.projections.TenantScope;
import dev.projections.engine.Container;
import dev.projections.ops.Sql;
import dev.projections.refresh.DrainerLauncher;
import dev.projections.refresh.Transactions;
import dev.projections.store.Tables;
import jakarta.enterprise.inject.Instance;
import jakarta.transaction.Status;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.time.Clock;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.function.Supplier;
import javax.sql.DataSource;

/**
 * The engine's {@link Container} in a Jakarta EE server: JTA transactions, the {@link DrainerPool}'s managed threads,
 * the {@link Drainer} EJB as the drainers' identity, the deployment's lifecycle thread, work after the caller's JTA
 * transaction commits (an interposed synchronization), and the application's {@code TenantScope} and
 * {@code TenantDirectory} beans — looked up at their first use, on the thread that uses them, so that building the
 * engine creates no bean of the application's.
 */
final class ServerContainer implements Container {

    private final Transactions transactions;
    private final Executor threads;
    private final DrainerLauncher.RunAs runAs;
    private final Executor lifecycleThread;
    private final TransactionSynchronizationRegistry registry;
    private final Instance<TenantScope> tenantScopes;
    private final Instance<TenantDirectory> tenantDirectories;
    private final Clock clock;
    private volatile TenantScope scope;

    ServerContainer(Transactions transactions, Executor threads, DrainerLauncher.RunAs runAs, Executor lifecycleThread,
                    TransactionSynchronizationRegistry registry, Instance<TenantScope> tenantScopes,
                    Instance<TenantDirectory> tenantDirectories, Clock clock) {
        this.transactions = transactions;
        this.threads = threads;
        this.runAs = runAs;
        this.lifecycleThread = lifecycleThread;
        this.registry = registry;
        this.tenantScopes = tenantScopes;
        this.tenantDirectories = tenantDirectories;
        this.clock = clock;
    }

    @Override
    public Transactions transactions() {
        return transactions;
    }

    @Override
    public Executor threads() {
        return threads;
    }

    @Override
    public DrainerLauncher.RunAs runAs() {
        return runAs;
    }

    @Override
    public Executor lifecycleThread() {
        return lifecycleThread;
    }

    @Override
    public void afterCommit(Runnable work) {
        int status = registry.getTransactionStatus();
        if (status == Status.STATUS_ACTIVE) {
            registry.registerInterposedSynchronization(new OnCommit(work));
        } else if (status != Status.STATUS_MARKED_ROLLBACK && status != Status.STATUS_ROLLING_BACK
                && status != Status.STATUS_ROLLEDBACK) {
            // no transaction, or one already committed or committing (an operation called from an afterCompletion
            // observer): what it did stands, so the work runs now rather than never
            work.run();
        } // else it rolls back: what it did will not be true
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T perTransaction(String key, Supplier<T> create) {
        if (registry.getTransactionStatus() == Status.STATUS_NO_TRANSACTION) {
            return create.get();
        }
        T value = (T) registry.getResource(key);
        if (value == null) {
            value = create.get();
            registry.putResource(key, value);
        }
        return value;
    }

    @Override
    public TenantScope tenantScope() {
        return tenant -> scope().enter(tenant);
    }

    private TenantScope scope() {
        TenantScope found = scope;
        if (found == null) {
            found = tenantScopes.isResolvable() ? tenantScopes.get() : TenantScope.NONE;
            scope = found;
        }
        return found;
    }

    @Override
    public Optional<TenantDirectory> tenantDirectory() {
        return tenantDirectories.isResolvable()
                ? Optional.of(() -> tenantDirectories.get().tenants())
                : Optional.empty();
    }

    @Override
    public Clock clock() {
        return clock;
    }

    /** On the JTA datasource: its connections join the caller's transaction. */
    @Override
    public Sql sql(DataSource dataSource, Tables store) {
        return Sql.on(dataSource, store);
    }
}
