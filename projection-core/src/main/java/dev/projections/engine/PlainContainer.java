package dev.projections.engine;

import dev.projections.TenantDirectory;
import dev.projections.TenantScope;
import dev.projections.ops.Sql;
import dev.projections.refresh.DrainerLauncher;
import dev.projections.refresh.JdbcTransactions;
import dev.projections.refresh.Transactions;
import dev.projections.store.Tables;
import java.time.Clock;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.function.Supplier;
import javax.sql.DataSource;

/**
 * The {@link Container} outside a server (tests, benchmarks, a plain Java application): JDBC transactions on the
 * datasource, the executor it is given, the caller's identity, a daemon thread for lifecycle events, no enclosing
 * transaction (what waits for a commit runs at once), no tenants, the system clock; each can be replaced.
 */
public final class PlainContainer implements Container {

    private Transactions transactions;
    private final Executor threads;
    private DrainerLauncher.RunAs runAs = DrainerLauncher.RunAs.CALLER;
    private Executor lifecycleThread = runnable -> {
        Thread thread = new Thread(runnable, "projection-lifecycle");
        thread.setDaemon(true); // an engine never stopped does not keep the JVM alive
        thread.start();
    };
    private TenantScope tenantScope = TenantScope.NONE;
    private TenantDirectory tenantDirectory;
    private Clock clock = Clock.systemUTC();

    private PlainContainer(Transactions transactions, Executor threads) {
        this.transactions = transactions;
        this.threads = Objects.requireNonNull(threads, "threads");
    }

    /** JDBC transactions on {@code dataSource}; drainers on {@code threads}. */
    public static PlainContainer on(DataSource dataSource, Executor threads) {
        return new PlainContainer(new JdbcTransactions(dataSource), threads);
    }

    /** Transactions of the caller's making (a test that records or fails them). */
    public PlainContainer transactions(Transactions transactions) {
        this.transactions = Objects.requireNonNull(transactions, "transactions");
        return this;
    }

    public PlainContainer runAs(DrainerLauncher.RunAs runAs) {
        this.runAs = Objects.requireNonNull(runAs, "runAs");
        return this;
    }

    public PlainContainer lifecycleThread(Executor lifecycleThread) {
        this.lifecycleThread = Objects.requireNonNull(lifecycleThread, "lifecycleThread");
        return this;
    }

    public PlainContainer tenantScope(TenantScope tenantScope) {
        this.tenantScope = Objects.requireNonNull(tenantScope, "tenantScope");
        return this;
    }

    public PlainContainer tenantDirectory(TenantDirectory tenantDirectory) {
        this.tenantDirectory = tenantDirectory;
        return this;
    }

    public PlainContainer clock(Clock clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
        return this;
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
        work.run();
    }

    @Override
    public <T> T perTransaction(String key, Supplier<T> create) {
        return create.get();
    }

    @Override
    public TenantScope tenantScope() {
        return tenantScope;
    }

    @Override
    public Optional<TenantDirectory> tenantDirectory() {
        return Optional.ofNullable(tenantDirectory);
    }

    @Override
    public Clock clock() {
        return clock;
    }

    /** Each piece of work in auto-commit mode (a pool may hand out connections without it), restored after. */
    @Override
    public Sql sql(DataSource dataSource, Tables store) {
        Sql on = Sql.on(dataSource, store);
        return new Sql() {
            @Override
            public <T> T call(String what, Work<T> work) {
                return on.call(what, connection -> {
                    boolean autoCommit = connection.getAutoCommit();
                    if (!autoCommit) {
                        connection.setAutoCommit(true);
                    }
                    try {
                        return work.run(connection);
                    } finally {
                        if (!autoCommit) {
                            connection.setAutoCommit(false);
                        }
                    }
                });
            }
        };
    }
}
