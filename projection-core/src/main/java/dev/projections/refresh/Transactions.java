package dev.projections.refresh;

import java.sql.Connection;
import java.time.Duration;

/**
 * Runs work in a new transaction of its own, committed before the call returns (rolled back when the work
 * throws). The EE layer implements it with JTA, so the projection's EntityManager and the engine's connection
 * join the same transaction.
 */
public interface Transactions {

    <T> T inNewTransaction(Duration timeout, Work<T> work) throws Exception;

    /**
     * As {@link #inNewTransaction}, called where the thread may be in a transaction of the caller's (an application's,
     * a console action's): that one is suspended meanwhile, so the work commits on its own and holds none of its locks
     * while the caller's transaction goes on. Where threads carry no transaction, the same as a new one.
     */
    default <T> T inTransactionOfItsOwn(Duration timeout, Work<T> work) throws Exception {
        return inNewTransaction(timeout, work);
    }

    @FunctionalInterface
    interface Work<T> {
        /** {@code connection} belongs to the projection datasource, enlisted in the new transaction. */
        T run(Connection connection) throws Exception;
    }
}
