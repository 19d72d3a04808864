package dev.projections.ee;

import jakarta.annotation.Resource;
import jakarta.annotation.security.DeclareRoles;
import jakarta.annotation.security.PermitAll;
import jakarta.ejb.ApplicationException;
import jakarta.ejb.LocalBean;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionManagement;
import jakarta.ejb.TransactionManagementType;
import jakarta.transaction.Status;
import jakarta.transaction.UserTransaction;

/**
 * One engine transaction begun through a bean-managed EJB's {@code UserTransaction} rather than on the
 * {@code TransactionManager}: where the server enlists a connection in the transaction of the current component
 * invocation, as GlassFish and Payara do, a {@code TransactionManager.begin()} inside the {@code NOT_SUPPORTED}
 * {@link Drainer} leaves that transaction unset and the engine's connection enlisted in none (docs/pitfalls.md #127);
 * their {@code UserTransaction.begin()} sets it, so the connection taken inside joins the transaction with the read
 * model's writes. Bean-managed, so the engine keeps its own timeout for each transaction and sees its commit fail as
 * it does on the {@code TransactionManager} ({@code RollbackException}, after a timeout too), where a container's
 * transaction would take the server's timeout and roll back a timed-out transaction without a word.
 * {@link JtaTransactions} goes through it only where its own begin left the connection outside the transaction.
 */
@Stateless
@LocalBean
@DeclareRoles(SystemIdentity.ROLE)
// with roles declared and no permission, WildFly would deny every call
@PermitAll
@TransactionManagement(TransactionManagementType.BEAN)
public class EngineTransaction {

    @Resource
    UserTransaction transaction;

    /** The engine's work in the transaction. */
    @FunctionalInterface
    public interface Work<T> {
        T run() throws Exception;
    }

    /**
     * Runs {@code work} in a new transaction of {@code timeoutSeconds}, committed when it returns; what the work or the
     * commit throws (a {@code RollbackException} where the commit rolled back) comes back as the cause of a
     * {@link Failed}, the transaction rolled back if it was still going.
     */
    public <T> T run(int timeoutSeconds, Work<T> work) throws Failed {
        try {
            transaction.setTransactionTimeout(timeoutSeconds);
            transaction.begin();
            T result = work.run();
            transaction.commit();
            return result;
        } catch (Exception | Error e) {
            rollbackIfGoing();
            throw new Failed(e);
        } finally {
            resetTimeout();
        }
    }

    /** As the engine's other transactions leave the thread: its own timeout no longer set. */
    private void resetTimeout() {
        try {
            transaction.setTransactionTimeout(0);
        } catch (Exception ignored) {
            // the next transaction sets its own
        }
    }

    private void rollbackIfGoing() {
        try {
            if (transaction.getStatus() != Status.STATUS_NO_TRANSACTION) {
                transaction.rollback();
            }
        } catch (Exception alreadyEnded) {
            // nothing left to roll back: the container ends what a bean-managed method leaves
        }
    }

    /** What the work or the commit threw, carried out of the invocation as it is. */
    @ApplicationException
    public static final class Failed extends Exception {

        private static final long serialVersionUID = 1L;

        Failed(Throwable cause) {
            super(cause);
        }
    }
}
