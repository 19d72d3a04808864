package dev.projections.engine;

import dev.projections.TenantDirectory;
import dev.projections.TenantScope;
import dev.projections.refresh.DrainerLauncher;
import dev.projections.refresh.Transactions;
import dev.projections.ops.Sql;
import dev.projections.store.Tables;
import java.time.Clock;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.function.Supplier;
import javax.sql.DataSource;

/**
 * What only the container an engine runs in knows, as one port of the {@link Engine}'s builder: its transactions,
 * its threads and the identity drainers run under, what runs after the caller's transaction commits, the tenant scope
 * and directory, and the clock. In a Jakarta EE server the EE module gives JTA, managed threads and the EJB door;
 * outside one {@link PlainContainer} gives JDBC transactions, an executor and the caller's thread.
 */
public interface Container {

    /** The transactions the drainers, the sweep and the stepper run in. */
    Transactions transactions();

    /** Where drainers run: at least {@code projection.workers} threads, used by nothing that could starve them. */
    Executor threads();

    /** The identity drainers run under on the thread they are given. */
    DrainerLauncher.RunAs runAs();

    /**
     * Runs the loop that tells lifecycle events, so that a slow observer holds no engine thread; in the server a
     * managed thread started with the deployment, so that it carries the container's context.
     */
    Executor lifecycleThread();

    /**
     * Runs {@code work} once the caller's transaction committed: at once without a transaction (or with one that has
     * already completed its commit), never on a rollback, nor when the transaction is already marked for one (what it
     * did will not be true).
     */
    void afterCommit(Runnable work);

    /**
     * The value kept under {@code key} as a resource of the caller's transaction, made by {@code create} at the first
     * call in it; outside a transaction a new one at every call, which nobody keeps.
     */
    <T> T perTransaction(String key, Supplier<T> create);

    /** Enters a tenant for a rebuild's reads and steps; {@link TenantScope#NONE} without tenants. */
    TenantScope tenantScope();

    /** The application's tenants, which a rebuild for every tenant walks; empty when it lists none. */
    Optional<TenantDirectory> tenantDirectory();

    /** The engine's clock: leases, due times and ages are read on it (tests move it). */
    Clock clock();

    /**
     * How an operation's SQL runs on {@code dataSource}: in a server on a connection that joins the caller's
     * transaction (a JTA datasource enlists it), so an action and its audit row commit together with the caller's
     * work; outside one, each piece of work on a connection in auto-commit mode, so that it is committed when the
     * operation returns whatever the pool's default.
     */
    Sql sql(DataSource dataSource, Tables store);
}
