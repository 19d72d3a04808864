package dev.projections.bench.db;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.Statement;
import java.util.concurrent.atomic.LongAdder;
import javax.sql.DataSource;

/**
 * Wraps a data source so that every statement execution through its connections is counted: Hibernate's, the
 * marks' upsert written through the session's connection, and the engine's. A counted call is one round trip to
 * the database, which is what "statements per transaction" is meant to show. The proxies cost nanoseconds against
 * round trips of a fraction of a millisecond, and both sides of every comparison go through them. While a
 * {@link StatementTimeline} is armed, each execution and commit is also timed there.
 */
public final class StatementCounting {

    private StatementCounting() {
    }

    public static DataSource wrap(DataSource target, LongAdder executions) {
        return (DataSource) Proxy.newProxyInstance(StatementCounting.class.getClassLoader(),
                new Class<?>[] {DataSource.class}, (proxy, method, args) -> {
                    Object result = invoke(target, method, args);
                    return method.getName().equals("getConnection")
                            ? proxy(Connection.class, new ConnectionHandler((Connection) result, executions))
                            : result;
                });
    }

    private record ConnectionHandler(Connection target, LongAdder executions) implements InvocationHandler {
        @Override
        public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
            if (method.getName().equals("commit") && StatementTimeline.armed()) {
                long start = System.nanoTime();
                Object result = StatementCounting.invoke(target, method, args);
                StatementTimeline.record(StatementTimeline.Kind.COMMIT, null, System.identityHashCode(target), start,
                        System.nanoTime());
                return result;
            }
            Object result = StatementCounting.invoke(target, method, args);
            if (result instanceof Statement statement && method.getReturnType().isInterface()) {
                // keep the declared kind (PreparedStatement, CallableStatement): callers use its methods
                String sql = args != null && args.length > 0 && args[0] instanceof String text ? text : null;
                return proxy(method.getReturnType(), new StatementHandler(statement, executions, sql,
                        System.identityHashCode(target)));
            }
            return result;
        }
    }

    private record StatementHandler(Statement target, LongAdder executions, String sql, int connection)
            implements InvocationHandler {
        @Override
        public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
            if (!method.getName().startsWith("execute")) {
                return StatementCounting.invoke(target, method, args);
            }
            executions.increment();
            if (!StatementTimeline.armed()) {
                return StatementCounting.invoke(target, method, args);
            }
            long start = System.nanoTime();
            Object result = StatementCounting.invoke(target, method, args);
            String text = sql != null ? sql : args != null && args.length > 0 && args[0] instanceof String s ? s : null;
            StatementTimeline.record(StatementTimeline.Kind.EXECUTE, text, connection, start, System.nanoTime());
            return result;
        }
    }

    private static Object proxy(Class<?> type, InvocationHandler handler) {
        return Proxy.newProxyInstance(StatementCounting.class.getClassLoader(), new Class<?>[] {type}, handler);
    }

    private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
