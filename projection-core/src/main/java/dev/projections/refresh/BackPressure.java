package dev.projections.refresh;

import java.util.List;

/**
 * Whether a failed refresh met back-pressure — no pooled connection or thread to be had in time — rather than a
 * fault of its key or its projection (docs/contract.md §6). Such a refresh never ran: its mark is given back without
 * an attempt and it counts towards no suspension, since a busy server is not a broken projection. Recognised
 * anywhere in the chain of causes, since a JTA rollback or a Hibernate exception wraps what the pool threw:
 * <ul>
 *   <li>{@link java.sql.SQLTransientConnectionException} (what a JDBC pool is meant to throw for it);</li>
 *   <li>the servers' own signals, which carry no such type: IronJacamar's blocking timeout ({@code IJ000655}),
 *       WildFly's EJB pool permit timeout ({@code WFLYEJB0378}), {@code jakarta.ejb.ConcurrentAccessTimeoutException},
 *       GlassFish/Payara's connection pool ({@code In-use connections equal max-pool-size}) and EJB pool
 *       ({@code Pool Instance not obtained within given time interval}), a full executor
 *       ({@link java.util.concurrent.RejectedExecutionException});</li>
 *   <li>a type listed in {@code projection.back-pressure}, or a subclass of one.</li>
 * </ul>
 * A database that refuses connections is not back-pressure: that is a fault, and counts (suspension, §6).
 */
public final class BackPressure {

    private static final List<String> TYPES = List.of("java.sql.SQLTransientConnectionException",
            "jakarta.ejb.ConcurrentAccessTimeoutException", "java.util.concurrent.RejectedExecutionException");

    /** Message texts by which servers signal pool exhaustion on exception types that say nothing of it. */
    private static final List<String> SIGNALS = List.of("IJ000655", "WFLYEJB0378",
            "In-use connections equal max-pool-size", "Pool Instance not obtained within given time interval");

    private final List<String> listed;

    public BackPressure(List<String> listed) {
        this.listed = listed;
    }

    public boolean isBackPressure(Throwable failure) {
        int depth = 0;
        // bounded: a chain of causes may loop (A caused by B caused by A)
        for (Throwable t = failure; t != null && depth++ < 64; t = t.getCause() == t ? null : t.getCause()) {
            if (isOfType(t.getClass()) || signals(t.getMessage())) {
                return true;
            }
        }
        return false;
    }

    private boolean isOfType(Class<?> type) {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            if (TYPES.contains(c.getName()) || listed.contains(c.getName())) {
                return true;
            }
        }
        return false;
    }

    private static boolean signals(String message) {
        if (message != null) {
            for (String signal : SIGNALS) {
                if (message.contains(signal)) {
                    return true;
                }
            }
        }
        return false;
    }
}
