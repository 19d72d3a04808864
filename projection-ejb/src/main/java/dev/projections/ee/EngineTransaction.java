package dev.projections.ee;

import jakarta.annotation.security.DeclareRoles;
import jakarta.annotation.security.PermitAll;
import jakarta.ejb.ApplicationException;
import jakarta.ejb.LocalBean;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;

/**
 * One engine transaction begun by the EJB container rather than on the {@code TransactionManager}: where the server
 * enlists a connection in the transaction of the current component invocation, as GlassFish and Payara do, a
 * {@code TransactionManager.begin()} inside the {@code NOT_SUPPORTED} {@link Drainer} leaves that transaction unset and
 * the engine's connection enlisted in none (docs/pitfalls.md #127); a {@code REQUIRES_NEW} invocation sets it, so the
 * connection taken inside joins the transaction with the read model's writes. {@link JtaTransactions} goes through it
 * only where its own begin left the connection outside the transaction, and sets the timeout on the thread first
 * (the container's begin takes it).
 */
@Stateless
@LocalBean
@DeclareRoles(SystemIdentity.ROLE)
// with roles declared and no permission, WildFly would deny every call
@PermitAll
@TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
public class EngineTransaction {

    /** The engine's work in the container's transaction. */
    @FunctionalInterface
    public interface Work<T> {
        T run() throws Exception;
    }

    /**
     * Runs {@code work} in a new transaction, which commits when it returns; whatever it throws rolls the transaction
     * back and comes back as the cause of a {@link Failed}. A commit that fails comes back as the container's
     * {@code EJBTransactionRolledbackException}.
     */
    public <T> T run(Work<T> work) throws Failed {
        try {
            return work.run();
        } catch (Exception | Error e) {
            throw new Failed(e);
        }
    }

    /** What the work threw, carried out of the invocation as an application exception that rolls it back. */
    @ApplicationException(rollback = true)
    public static final class Failed extends Exception {

        private static final long serialVersionUID = 1L;

        Failed(Throwable cause) {
            super(cause);
        }
    }
}
