package dev.projections.refresh;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import javax.sql.DataSource;
import java.util.concurrent.atomic.LongAdder;

/**
 * The engine's transactions as plain JDBC on a pooled connection, for an engine outside a server (the unit tests, the
 * benchmarks, a Java SE application); in a server JTA stands in its place. The connection of the running transaction
 * is also the thread's {@link #current()} one: that is where a projection runs its SQL, as a container-managed
 * EntityManager would join the engine's JTA transaction.
 * <p>
 * The timeout is not enforced: there is no transaction reaper in Java SE, and a statement timeout per transaction
 * would cost the engine a round trip the plain-SQL bounds do not pay.
 */
public final class JdbcTransactions implements Transactions {

    private static final ThreadLocal<Connection> CURRENT = new ThreadLocal<>();

    private final DataSource pool;
    private final LongAdder begun = new LongAdder();

    public JdbcTransactions(DataSource pool) {
        this.pool = pool;
    }

    /** Transactions begun so far: each is one commit (or rollback) the database waits for. */
    public long begun() {
        return begun.sum();
    }

    @Override
    public <T> T inNewTransaction(Duration timeout, Work<T> work) throws Exception {
        Connection outer = CURRENT.get();
        begun.increment();
        try (Connection connection = pool.getConnection()) {
            // the pools hand out connections with auto-commit off already; this is only a guard
            if (connection.getAutoCommit()) {
                connection.setAutoCommit(false);
            }
            CURRENT.set(connection);
            try {
                T result = work.run(connection);
                connection.commit();
                return result;
            } catch (Exception | Error e) {
                rollbackQuietly(connection, e);
                throw e;
            }
        } finally {
            if (outer == null) {
                CURRENT.remove();
            } else {
                CURRENT.set(outer);
            }
        }
    }

    /** The connection of the transaction running on this thread; projections write through it. */
    public static Connection current() {
        Connection connection = CURRENT.get();
        if (connection == null) {
            throw new IllegalStateException("no engine transaction on this thread");
        }
        return connection;
    }

    private static void rollbackQuietly(Connection connection, Throwable cause) {
        try {
            connection.rollback();
        } catch (SQLException e) {
            cause.addSuppressed(e);
        }
    }
}
