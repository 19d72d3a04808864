package dev.projections.refresh;

import java.sql.SQLRecoverableException;
import java.sql.SQLTransientException;
import java.util.Set;
import java.sql.SQLException;
import java.util.regex.Pattern;

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

    /*
     * By SQLState, since PostgreSQL's driver throws one type for everything: connection exceptions (08), serialization
     * failures and deadlocks (40001, 40P01), a timeout (HYT00), the server's resources short for now (class 53: too
     * many connections, out of memory, disk full), an operator's or the server's intervention (57P01 a terminated
     * backend, 57P02 a crash, 57P03 "starting up", 57P04, 57014 a cancelled query; MariaDB's 70100 a killed query),
     * and a system error (class 58, an I/O error). What looks transient and is not ends after a bound of steps
     * (RebuildStepper.MAX_TRANSIENT_FAILURES).
     */
    private static final Pattern TRANSIENT_STATES =
            Pattern.compile("08...|40001|40P01|HYT00|53...|57P0[1-4]|57014|58...|70100");

    private Transient() {
    }

    static boolean is(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SQLTransientException || t instanceof SQLRecoverableException
                    || TYPES.contains(t.getClass().getName())) {
                return true;
            }
            if (t instanceof SQLException sql && sql.getSQLState() != null
                    && TRANSIENT_STATES.matcher(sql.getSQLState()).matches()) {
                return true;
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
            if (t instanceof SQLException sql && "55P03".equals(sql.getSQLState())) {
                return true;
            }
        }
        return false;
    }

    /* PostgreSQL's lock_timeout, MariaDB's innodb_lock_wait_timeout */
    private static boolean lockWaitRanOut(Throwable t) {
        return t instanceof SQLException sql && ("55P03".equals(sql.getSQLState())
                || sql.getErrorCode() == 1205 && "HY000".equals(sql.getSQLState()));
    }
}
