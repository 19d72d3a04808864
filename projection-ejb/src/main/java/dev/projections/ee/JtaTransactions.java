package dev.projections.ee;

import dev.projections.refresh.Transactions;
import jakarta.annotation.Resource;
import jakarta.ejb.LocalBean;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionManagement;
import jakarta.ejb.TransactionManagementType;
import jakarta.inject.Inject;
import jakarta.transaction.Status;
import jakarta.transaction.SystemException;
import jakarta.transaction.UserTransaction;
import java.sql.Connection;
import java.time.Duration;

/**
 * The engine's transactions, as JTA transactions begun by a bean-managed EJB: each with its own timeout, so a
 * refresh times out inside its lease. The projection's container-managed EntityManager joins the same
 * transaction, and the engine's connection is enlisted in it, so a read model in the projection datasource
 * commits atomically with the ack.
 */
@Stateless
@LocalBean
@TransactionManagement(TransactionManagementType.BEAN)
public class JtaTransactions implements Transactions {

    @Resource
    UserTransaction transaction;

    @Inject
    EngineResources resources;

    @Override
    public <T> T inNewTransaction(Duration timeout, Work<T> work) throws Exception {
        transaction.setTransactionTimeout((int) Math.max(1, timeout.toSeconds()));
        try {
            transaction.begin();
            T result;
            try (Connection connection = resources.dataSource().getConnection()) {
                result = work.run(connection);
            }
            transaction.commit();
            return result;
        } catch (Exception | Error e) {
            rollbackIfActive();
            throw e;
        } finally {
            transaction.setTransactionTimeout(0);
        }
    }

    private void rollbackIfActive() throws SystemException {
        int status = transaction.getStatus();
        if (status != Status.STATUS_NO_TRANSACTION && status != Status.STATUS_COMMITTED
                && status != Status.STATUS_ROLLEDBACK) {
            transaction.rollback();
        }
    }
}
