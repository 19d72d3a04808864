package dev.projections.bench.db;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.ArrayList;
import java.util.List;

/**
 * The benchmark's database: one schema of a PostgreSQL database, emptied and given the product's tables at the start
 * of each run, plus the housekeeping between phases (truncate, vacuum) that keeps phases comparable.
 */
public final class BenchDatabase {

    /** "database does not exist" */
    private static final String INVALID_CATALOG = "3D000";
    private static final Pattern DATABASE_IN_URL = Pattern.compile("^(jdbc:postgresql://[^/]+/)([^?]+)(\\?.*)?$");

    private final String url;
    private final String user;
    private final String password;
    private final String schema;

    private BenchDatabase(String url, String user, String password, String schema) {
        this.url = url;
        this.user = user;
        this.password = password;
        this.schema = schema;
    }

    /**
     * Creates the database of {@code databaseUrl} when it is missing, drops and creates {@code schema} in it, and
     * applies the product's changelog there. Every later connection has {@code schema} as its current schema, and
     * with {@code asyncCommit} does not wait for the disk at commit.
     */
    public static BenchDatabase fresh(String databaseUrl, String user, String password, String schema,
                                      boolean asyncCommit) throws Exception {
        if (!schema.matches("[a-z_][a-z0-9_]*")) {
            throw new IllegalArgumentException("schema must be a plain lower-case name, was " + schema);
        }
        createDatabaseIfMissing(databaseUrl, user, password);
        String url = databaseUrl + (databaseUrl.contains("?") ? "&" : "?") + "currentSchema=" + schema
                // a session setting of every connection, Hibernate's and the engine's alike
                + (asyncCommit ? "&options=-c%20synchronous_commit%3Doff" : "");
        BenchDatabase database = new BenchDatabase(url, user, password, schema);
        try (Connection connection = DriverManager.getConnection(databaseUrl, user, password);
             Statement statement = connection.createStatement()) {
            statement.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
            statement.execute("CREATE SCHEMA " + schema);
        }
        ProductSchema.apply(database.connect());
        return database;
    }

    private static void createDatabaseIfMissing(String databaseUrl, String user, String password) throws SQLException {
        try (Connection ignored = DriverManager.getConnection(databaseUrl, user, password)) {
            return;
        } catch (SQLException e) {
            if (!INVALID_CATALOG.equals(e.getSQLState())) {
                throw e;
            }
        }
        Matcher m = DATABASE_IN_URL.matcher(databaseUrl);
        if (!m.matches() || !m.group(2).matches("[a-z_][a-z0-9_]*")) {
            throw new IllegalArgumentException("cannot tell which database to create from " + databaseUrl);
        }
        String maintenance = m.group(1) + "postgres" + (m.group(3) == null ? "" : m.group(3));
        try (Connection connection = DriverManager.getConnection(maintenance, user, password);
             Statement statement = connection.createStatement()) {
            statement.execute("CREATE DATABASE " + m.group(2));
        }
    }

    /** A plain connection in auto-commit mode, for set-up and checks; not for anything measured. */
    public Connection connect() throws SQLException {
        return DriverManager.getConnection(url, user, password);
    }

    /**
     * A pool of {@code size} connections with auto-commit off: what a server's datasource is to the engine, so no
     * measured transaction pays for a connect.
     */
    public HikariDataSource pool(String name, int size) {
        HikariConfig config = new HikariConfig();
        config.setPoolName(name);
        config.setJdbcUrl(url);
        config.setUsername(user);
        config.setPassword(password);
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(size);
        config.setAutoCommit(false);
        HikariDataSource pool = new HikariDataSource(config);
        fill(pool, size);
        return pool;
    }

    /** Opens every connection now: the pool otherwise connects in the background while the first drain is timed. */
    private static void fill(HikariDataSource pool, int size) {
        List<Connection> held = new ArrayList<>(size);
        try {
            for (int i = 0; i < size; i++) {
                held.add(pool.getConnection());
            }
        } catch (SQLException e) {
            pool.close();
            throw new IllegalStateException("cannot open " + size + " connections to " + pool.getJdbcUrl(), e);
        } finally {
            for (Connection connection : held) {
                try {
                    connection.close();
                } catch (SQLException ignored) {
                    // back to the pool; nothing to do
                }
            }
        }
    }

    /** Empties tables of the schema (missing ones are skipped). */
    public void truncate(String... tables) throws SQLException {
        try (Connection connection = connect(); Statement statement = connection.createStatement()) {
            statement.execute("TRUNCATE " + String.join(", ", tables));
        }
    }

    /**
     * Autovacuum is off on the benchmark's server, and would run at random moments if it were on: dead rows and
     * stale statistics are cleared at fixed points instead, after bulk loads and between phases.
     */
    public void vacuumAnalyze(String... tables) throws SQLException {
        try (Connection connection = connect(); Statement statement = connection.createStatement()) {
            statement.execute("VACUUM ANALYZE " + String.join(", ", tables));
        }
    }

    public long count(String sql) throws SQLException {
        try (Connection connection = connect(); Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery(sql)) {
            rows.next();
            return rows.getLong(1);
        }
    }

    public void execute(String... sql) throws SQLException {
        try (Connection connection = connect(); Statement statement = connection.createStatement()) {
            for (String each : sql) {
                statement.execute(each);
            }
        }
    }

    public String url() {
        return url;
    }

    public String user() {
        return user;
    }

    public String password() {
        return password;
    }

    public String schema() {
        return schema;
    }
}
