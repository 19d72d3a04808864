package dev.projections.store;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.Statement;

/**
 * A JDK proxy's handler over a {@link Connection}, and over each plain {@link Statement} it creates, that rewrites the
 * SQL text handed to it ({@code prepare*}, {@code execute*}, {@code addBatch}) before the driver sees it. The one
 * mechanism of the connections that switch MariaDB's snapshot check off ({@link SnapshotChecks}) and that name the
 * product's tables in their schema ({@link TableSchema}); each says only how it rewrites.
 */
abstract class SqlRewriting implements InvocationHandler {

    /** What {@link #instead} returns when the call goes to the target. */
    static final Object PROCEED = new Object();

    private final Object target;
    private final Connection connection;

    SqlRewriting(Object target, Connection connection) {
        this.target = target;
        this.connection = connection;
    }

    /** {@code connection} behind a proxy that rewrites with {@code handler}. */
    static Connection proxy(Connection connection, SqlRewriting handler) {
        return (Connection) Proxy.newProxyInstance(SqlRewriting.class.getClassLoader(),
                new Class<?>[] {Connection.class}, handler);
    }

    /** The SQL the database runs instead of {@code sql}. */
    abstract String rewrite(String sql) throws Exception;

    /** The same rewriting over {@code statement}, a plain statement the connection created. */
    abstract SqlRewriting forStatement(Statement statement);

    /** Whether the call {@code name} takes SQL as its first argument. */
    boolean takesSql(String name) {
        return name.startsWith("prepare") || name.startsWith("execute") || name.equals("addBatch");
    }

    /** An answer without the target's ({@code null} included), or {@link #PROCEED}. */
    Object instead(Object proxy, String name, Object[] args) {
        return PROCEED;
    }

    final Connection connection() {
        return connection;
    }

    /** Whether this handler is the connection's own, not a statement's. */
    final boolean onConnection() {
        return target == connection;
    }

    @Override
    public final Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
        String name = method.getName();
        Object answer = instead(proxy, name, args);
        if (answer != PROCEED) {
            return answer;
        }
        if (args != null && args.length > 0 && args[0] instanceof String sql && takesSql(name)) {
            args = args.clone();
            args[0] = rewrite(sql);
        }
        Object result;
        try {
            result = method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
        if (onConnection() && name.equals("createStatement") && result instanceof Statement plain) {
            return Proxy.newProxyInstance(SqlRewriting.class.getClassLoader(), new Class<?>[] {Statement.class},
                    forStatement(plain));
        }
        return result;
    }
}
