package dev.projections.ee;

import dev.projections.engine.Foundation;
import dev.projections.config.Settings;
import dev.projections.engine.Once;
import dev.projections.refresh.Transactions;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import jakarta.transaction.Status;
import jakarta.transaction.SystemException;
import jakarta.transaction.TransactionManager;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.logging.Logger;
import javax.naming.InitialContext;
import javax.naming.NamingException;
import jakarta.transaction.Transaction;

/**
 * The engine's transactions, begun on the container's JTA transaction manager, each with its own timeout so a
 * refresh times out inside its lease. The projection's container-managed EntityManager joins the same
 * transaction and the engine's connection is enlisted in it, so a read model in the projection datasource
 * commits atomically with the ack. Where a connection taken after the manager's begin is enlisted in nothing —
 * GlassFish and Payara enlist by the component invocation's transaction, which that begin leaves unset — they are
 * begun through a bean-managed EJB's {@code UserTransaction} instead ({@link EngineTransaction}; docs/design.md D62).
 * <p>
 * Not an EJB: the engine stops in a {@code @PreDestroy} at undeploy, when WildFly's EJBs already refuse calls, and
 * it must still release its claims then (on GlassFish and Payara, which stop the timer's singleton before the module's
 * EJBs, {@link EngineTransaction} still answers then).
 * <p>
 * The question that sends the engine through {@link EngineTransaction} is asked by the first engine transaction on
 * the manager, which the schema's migration at deployment makes in an invocation without a transaction: in one with
 * a suspended caller's transaction, GlassFish would enlist the connection in that one and the question answer no.
 */
@ApplicationScoped
public class JtaTransactions implements Transactions {

    /** WildFly, then Payara, then the older WildFly name. */
    private static final List<String> TRANSACTION_MANAGER = List.of(
            "java:jboss/TransactionManager", "java:appserver/TransactionManager", "java:/TransactionManager");

    @Inject
    Foundation foundation;

    private TransactionManager manager;

    /** The door to a transaction the server enlists by: looked up at its first use, which only GlassFish and Payara make. */
    @Inject
    Instance<EngineTransaction> doors;

    private final Once<EngineTransaction> door = Once.of(() -> doors.get());

    /** Set when a transaction begun on the {@code TransactionManager} left the engine's connection outside it. */
    private volatile boolean throughUserTransaction;

    @PostConstruct
    void lookUp() {
        String configured = foundation.settings().transactionManager();
        if (configured != null) {
            try {
                manager = (TransactionManager) new InitialContext().lookup(configured);
                return;
            } catch (NamingException | ClassCastException e) {
                throw new IllegalStateException(Settings.TRANSACTION_MANAGER + "=" + configured + ": no JTA "
                        + "TransactionManager under that JNDI name (" + e + "); set it to the name your server binds "
                        + "its TransactionManager under, or leave it unset to try " + TRANSACTION_MANAGER, e);
            }
        }
        for (String name : TRANSACTION_MANAGER) {
            try {
                manager = (TransactionManager) new InitialContext().lookup(name);
                return;
            } catch (NamingException | ClassCastException notHere) {
                // try the next server's name
            }
        }
        throw new IllegalStateException("no JTA TransactionManager under " + TRANSACTION_MANAGER + ": set "
                + Settings.TRANSACTION_MANAGER + " to the JNDI name your server binds it under");
    }

    @Override
    public <T> T inNewTransaction(Duration timeout, Work<T> work) throws Exception {
        if (isFinished(manager.getStatus())) {
            detach(); // left by a transaction the reaper rolled back after its timeout
        }
        if (manager.getStatus() != Status.STATUS_NO_TRANSACTION) {
            throw new IllegalStateException("the engine's transactions run on threads without one; status "
                    + manager.getStatus());
        }
        int seconds = (int) Math.max(1, timeout.toSeconds());
        if (!throughUserTransaction) {
            try {
                return inTransactionManagersTransaction(seconds, work);
            } catch (NotEnlisted e) {
                throughUserTransaction = true;
                Logger.getLogger(JtaTransactions.class.getName()).info("the engine's connection was in no "
                        + "transaction begun on the TransactionManager (as on GlassFish and Payara): the engine's "
                        + "transactions are begun through a bean-managed EJB from now on (docs/pitfalls.md #127)");
            }
        }
        return inUserTransaction(seconds, work);
    }

    /** Thrown where the engine's connection says it commits each statement inside a transaction just begun. */
    private static final class NotEnlisted extends Exception {
        private static final long serialVersionUID = 1L;
    }

    /**
     * The work in a transaction begun through {@link EngineTransaction}'s {@code UserTransaction}, where the server
     * enlists the connection. Where the EJB cannot be called (its pool exhausted, the application stopping), that
     * failure is the work's: nothing runs outside a transaction the connection joins.
     */
    private <T> T inUserTransaction(int seconds, Work<T> work) throws Exception {
        try {
            return door.get().run(seconds, () -> {
                try (Connection connection = foundation.dataSource().getConnection()) {
                    foundation.store().beginEngineTransaction(connection);
                    return work.run(connection);
                }
            });
        } catch (EngineTransaction.Failed failed) {
            Throwable cause = failed.getCause();
            if (cause instanceof Error error) {
                throw error;
            }
            throw (Exception) cause;
        }
    }

    /**
     * The work in a transaction begun on the {@code TransactionManager}; none where the connection says it commits each
     * statement ({@link NotEnlisted}, thrown before any statement ran).
     */
    private <T> T inTransactionManagersTransaction(int seconds, Work<T> work) throws Exception {
        manager.setTransactionTimeout(seconds);
        try {
            manager.begin();
            T result;
            try (Connection connection = foundation.dataSource().getConnection()) {
                if (connection.getAutoCommit()) {
                    throw new NotEnlisted();
                }
                // READ COMMITTED on MariaDB/MySQL, for this transaction only (docs/design.md D28)
                foundation.store().beginEngineTransaction(connection);
                result = work.run(connection);
            }
            manager.commit();
            return result;
        } catch (Exception | Error e) {
            rollbackIfActive();
            throw e;
        } finally {
            manager.setTransactionTimeout(0);
        }
    }

    /**
     * As {@link #inNewTransaction}, on a thread that may be in the caller's transaction: that one is suspended for the
     * work and resumed afterwards, whatever the work's outcome.
     */
    @Override
    public <T> T inTransactionOfItsOwn(Duration timeout, Work<T> work) throws Exception {
        Transaction callers = manager.getStatus() == Status.STATUS_NO_TRANSACTION ? null
                : manager.suspend();
        try {
            return inNewTransaction(timeout, work);
        } finally {
            if (callers != null) {
                manager.resume(callers);
            }
        }
    }

    /**
     * Ends whatever transaction the failed work left on the thread. A transaction the reaper timed out stays
     * associated with the thread in state ROLLEDBACK: it must be taken off too, or the next transaction of this
     * pooled thread (the failure record) could not begin.
     */
    private void rollbackIfActive() throws SystemException {
        int status = manager.getStatus();
        if (status == Status.STATUS_NO_TRANSACTION) {
            return;
        }
        if (isFinished(status)) {
            detach();
            return;
        }
        try {
            manager.rollback();
        } catch (IllegalStateException | SystemException e) {
            detach();
        }
    }

    private static boolean isFinished(int status) {
        return status == Status.STATUS_ROLLEDBACK || status == Status.STATUS_COMMITTED
                || status == Status.STATUS_MARKED_ROLLBACK || status == Status.STATUS_UNKNOWN;
    }

    private void detach() {
        try {
            manager.rollback();
        } catch (Exception alreadyEnded) {
            try {
                manager.suspend();
            } catch (Exception nothingLeft) {
                // the thread has no transaction any more
            }
        }
    }
}
