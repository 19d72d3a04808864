package dev.projections.refresh;

import java.sql.SQLRecoverableException;
import java.sql.SQLTransientException;
import java.util.Set;

/**
 * Whether a failure says "not now" rather than "wrong": a timeout, a lost connection, a lock or pool wait that ran
 * out. A rebuild step that meets one rolls back and is stepped again from its cursor (docs/contract.md §7); any
 * other failure of a step fails its run.
 */
final class Transient {

    /* by name: the engine must not need the persistence or transaction APIs on its class path to tell them */
    private static final Set<String> TYPES = Set.of("jakarta.persistence.QueryTimeoutException",
            "jakarta.persistence.LockTimeoutException", "jakarta.persistence.PessimisticLockException",
            "jakarta.transaction.RollbackException", "jakarta.ejb.ConcurrentAccessTimeoutException",
            "java.util.concurrent.RejectedExecutionException");

    private Transient() {
    }

    static boolean is(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SQLTransientException || t instanceof SQLRecoverableException
                    || TYPES.contains(t.getClass().getName())) {
                return true;
            }
            if (t instanceof java.sql.SQLException sql && sql.getSQLState() != null
                    && (sql.getSQLState().startsWith("08") || sql.getSQLState().equals("57014")
                    || sql.getSQLState().equals("40001") || sql.getSQLState().equals("40P01")
                    || sql.getSQLState().equals("HYT00"))) {
                return true; // connection exception, query cancelled, serialization failure, deadlock, timeout
            }
            if (t.getMessage() != null && t.getMessage().contains("IJ031070")) {
                return true; // IronJacamar: the transaction was rolled back (its timeout ran out) under the statement
            }
            if (lockWaitRanOut(t)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether {@code failure} was caused by PostgreSQL's {@code lock_timeout}, which the engine sets, short, on the
     * statements that lock with SKIP LOCKED while holding other rows (docs/pitfalls.md #92). MariaDB's lock wait
     * timeout is not one: the engine does not shorten it, and a statement that waited it out waited for long.
     */
    static boolean isLockTimeout(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof java.sql.SQLException sql && "55P03".equals(sql.getSQLState())) {
                return true;
            }
        }
        return false;
    }

    /* PostgreSQL's lock_timeout, MariaDB's innodb_lock_wait_timeout */
    private static boolean lockWaitRanOut(Throwable t) {
        return t instanceof java.sql.SQLException sql && ("55P03".equals(sql.getSQLState())
                || sql.getErrorCode() == 1205 && "HY000".equals(sql.getSQLState()));
    }
}
