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

    @FunctionalInterface
    interface Work<T> {
        /** {@code connection} belongs to the projection datasource, enlisted in the new transaction. */
        T run(Connection connection) throws Exception;
    }
}
