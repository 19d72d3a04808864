package dev.projections.store;

import java.lang.reflect.Array;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The signal of a commit that wrote marks, from one instance to the others on the same database (docs/design.md D55):
 * PostgreSQL's {@code NOTIFY}, sent in the business transaction, so that the database delivers it only once the
 * transaction committed (and never when it rolled back), and once per transaction and payload. H2 and MariaDB have no
 * such signal: there {@link #supported()} is false, {@link #send} does nothing and the instances look for due marks
 * instead (the wake-up look). The channel carries the tables' schema, so that two applications with their own tables
 * in one database do not wake each other.
 */
public final class CommitSignals {

    /** The {@code application_name} of a listening connection, followed by its instance's name. */
    public static final String LISTENER_NAME = "projections commit listener";

    private final Dialect dialect;
    private final String channel;

    /** The signals of the tables on {@code dialect}'s database in {@code schema} ({@code null}: the default one). */
    public CommitSignals(Dialect dialect, String schema) {
        this.dialect = dialect;
        this.channel = schema == null ? "projections" : channelOf(schema.toLowerCase(java.util.Locale.ROOT));
    }

    /** The longest channel name, in bytes: PostgreSQL refuses a longer one in pg_notify and cuts it in LISTEN. */
    static final int MAX_CHANNEL_BYTES = 63;

    /** {@code projections:<schema>}, or, when that is too long, the schema's start and a hash of the whole name. */
    static String channelOf(String schema) {
        String whole = "projections:" + schema;
        if (whole.getBytes(java.nio.charset.StandardCharsets.UTF_8).length <= MAX_CHANNEL_BYTES) {
            return whole;
        }
        String hash = String.format("%08x", schema.hashCode());
        StringBuilder start = new StringBuilder("projections:");
        for (int i = 0; i < schema.length(); i = schema.offsetByCodePoints(i, 1)) {
            String next = start + schema.substring(i, schema.offsetByCodePoints(i, 1));
            if ((next + ":" + hash).getBytes(java.nio.charset.StandardCharsets.UTF_8).length > MAX_CHANNEL_BYTES) {
                break;
            }
            start.setLength(0);
            start.append(next);
        }
        return start + ":" + hash;
    }

    /** Whether the database delivers signals: PostgreSQL only. */
    public boolean supported() {
        return dialect == Dialect.POSTGRESQL;
    }

    /** The channel's name (tests and logs). */
    public String channel() {
        return channel;
    }

    /** Signals {@code payload} when the transaction of {@code connection} commits; nothing where unsupported. */
    public void send(Connection connection, String payload) throws SQLException {
        if (!supported()) {
            return;
        }
        try (PreparedStatement notify = connection.prepareStatement("SELECT pg_notify(?, ?)")) {
            notify.setString(1, channel);
            notify.setString(2, payload);
            notify.execute();
        }
    }

    /**
     * Listens on {@code connection} (autocommit, of a datasource of its own: it is held as long as it listens), named
     * for {@code instance} in {@code pg_stat_activity}, and
     * returns what reads its signals. Fails when the connection is not PostgreSQL's driver's, or hides it so that
     * nothing here can reach its notifications.
     */
    public Listening listen(Connection connection, String instance) throws SQLException {
        if (!supported()) {
            throw new SQLException("only PostgreSQL delivers signals between instances, not " + dialect);
        }
        Listening listening = Listening.of(connection);
        listening.boundReads();
        try (Statement statement = connection.createStatement()) {
            // named so in pg_stat_activity: an operator (and a test) tells it from the pool's connections
            String name = (LISTENER_NAME + " " + instance).replaceAll("[^A-Za-z0-9 ._:-]", "_");
            statement.execute("SET application_name = '" + name.substring(0, Math.min(name.length(), 63)) + "'");
            statement.execute("LISTEN \"" + channel.replace("\"", "\"\"") + "\"");
        }
        return listening;
    }

    /**
     * The signals a listening connection received, read through the driver's {@code PGConnection.getNotifications(int)}.
     * The container's pool wraps the driver's connection and the application does not see the driver's classes, so
     * the method is found on the connection behind the wrapper and called reflectively.
     */
    public static final class Listening {

        private final Connection connection;
        private final Object driverConnection;
        private final Method notifications;

        private Listening(Connection connection, Object driverConnection, Method notifications) {
            this.connection = connection;
            this.driverConnection = driverConnection;
            this.notifications = notifications;
        }

        static Listening of(Connection connection) throws SQLException {
            for (Object candidate : behind(connection)) {
                try {
                    Method method = candidate.getClass().getMethod("getNotifications", int.class);
                    return new Listening(connection, candidate, method);
                } catch (NoSuchMethodException e) {
                    // not the driver's connection: the next candidate
                }
            }
            throw new SQLException("the connection " + connection.getClass().getName()
                    + " does not give access to the PostgreSQL driver's notifications");
        }

        /** The connection and what may stand behind it: the driver's own, as pools let it be reached. */
        private static List<Object> behind(Connection connection) {
            Set<Object> candidates = new LinkedHashSet<>();
            candidates.add(connection);
            try {
                candidates.add(connection.getMetaData().getConnection());
            } catch (SQLException | RuntimeException e) {
                // a pool that hides it: the other ways
            }
            for (Object known : new ArrayList<>(candidates)) {
                // WildFly's (IronJacamar's) wrapper names it getUnderlyingConnection, Payara's getConnection
                for (String getter : List.of("getUnderlyingConnection", "getConnection")) {
                    try {
                        Object inner = known.getClass().getMethod(getter).invoke(known);
                        if (inner != null) {
                            candidates.add(inner);
                        }
                    } catch (ReflectiveOperationException | RuntimeException e) {
                        // no such getter here
                    }
                }
                try {
                    Class<?> driverInterface = Class.forName("org.postgresql.PGConnection", false,
                            known.getClass().getClassLoader());
                    candidates.add(connection.unwrap(driverInterface));
                } catch (ClassNotFoundException | SQLException | RuntimeException | LinkageError e) {
                    // the driver's interface is not visible from here
                }
            }
            return new ArrayList<>(candidates);
        }

        /**
         * The payloads of the signals received, waiting up to {@code millis} for the first (0: does not wait). Throws
         * when the connection broke: the database restarted, or killed this backend.
         */
        public List<String> await(int millis) throws SQLException {
            Object received;
            try {
                received = notifications.invoke(driverConnection, Math.max(millis, 1));
            } catch (InvocationTargetException e) {
                if (e.getCause() instanceof SQLException sql) {
                    throw sql;
                }
                throw new SQLException("reading notifications failed", e.getCause());
            } catch (IllegalAccessException e) {
                throw new SQLException("the driver's notifications cannot be read", e);
            }
            List<String> payloads = new ArrayList<>();
            int count = received == null ? 0 : Array.getLength(received);
            for (int i = 0; i < count; i++) {
                Object notification = Array.get(received, i);
                try {
                    payloads.add(String.valueOf(notification.getClass().getMethod("getParameter").invoke(notification)));
                } catch (ReflectiveOperationException e) {
                    payloads.add("");
                }
            }
            return payloads;
        }

        /**
         * Whether the connection still answers (a half-open one receives nothing and says nothing): within
         * {@link #NETWORK_TIMEOUT_MILLIS}, or it throws.
         */
        public void check() throws SQLException {
            try (Statement statement = connection.createStatement()) {
                statement.execute("SELECT 1");
            }
        }

        /**
         * Before the connection goes back to its pool: it stops listening and loses its name, so that the pool's next
         * user (a listener again, the pool being the listeners' own) starts clean and no backend keeps receiving
         * signals nobody reads (they would fill PostgreSQL's notification queue, and then every NOTIFY fails).
         * Best effort: a broken connection is dropped by the pool's validation anyway.
         */
        public void stopListening() {
            try (Statement statement = connection.createStatement()) {
                statement.execute("UNLISTEN *");
                statement.execute("RESET application_name");
            } catch (SQLException | RuntimeException e) {
                // broken: the pool validates it before its next use
            }
        }

        /**
         * Bounds every read on the driver's connection, so that {@link #check} on a half-open connection fails within
         * {@link #NETWORK_TIMEOUT_MILLIS} instead of at TCP's own timeout (minutes); the driver's wait for signals
         * sets its own bound and restores this one.
         */
        void boundReads() throws SQLException {
            if (driverConnection instanceof Connection driver) {
                driver.setNetworkTimeout(Runnable::run, NETWORK_TIMEOUT_MILLIS);
            }
        }

        /** How long a read on a listening connection may block. */
        static final int NETWORK_TIMEOUT_MILLIS = 10_000;
    }
}
