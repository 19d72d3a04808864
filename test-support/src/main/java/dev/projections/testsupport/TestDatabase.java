package dev.projections.testsupport;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.postgresql.PostgreSQLContainer;

/**
 * The PostgreSQL database the tests run against, chosen once per JVM in this order: the embedded one when the system
 * property {@value #EMBEDDED} is {@code true} (the build's second pass of the store tests, on the newest PostgreSQL
 * its binaries carry); the one named by {@code PROJECTION_TEST_JDBC_URL} (with {@code _USER} and {@code _PASSWORD});
 * a Testcontainers PostgreSQL when a Docker engine answers; otherwise an embedded PostgreSQL started from Maven
 * Central binaries. The same tests run whichever is chosen; the choice and the server's version are logged in one
 * line.
 */
public final class TestDatabase {

    private static TestDatabase instance;

    private final String jdbcUrl;
    private final String user;
    private final String password;
    private final String source;

    private TestDatabase(String jdbcUrl, String user, String password, String source) {
        this.jdbcUrl = jdbcUrl;
        this.user = user;
        this.password = password;
        this.source = source;
    }

    /** The system property that asks for the embedded PostgreSQL whatever the environment names. */
    public static final String EMBEDDED = "projection.test.embedded-postgresql";

    public static synchronized TestDatabase get() {
        if (instance == null) {
            instance = choose();
            System.out.println("[test-database] " + instance.source + " at " + instance.jdbcUrl
                    + " (user " + instance.user + ", " + instance.version() + ")");
        }
        return instance;
    }

    private String version() {
        try (Connection connection = connect()) {
            return "PostgreSQL " + connection.getMetaData().getDatabaseProductVersion();
        } catch (SQLException e) {
            return "version unknown: " + e.getMessage();
        }
    }

    private static TestDatabase choose() {
        if (Boolean.getBoolean(EMBEDDED)) {
            return embedded("embedded PostgreSQL (" + EMBEDDED + ")");
        }
        String url = System.getenv("PROJECTION_TEST_JDBC_URL");
        if (url != null && !url.isBlank()) {
            return new TestDatabase(url, envOr("PROJECTION_TEST_JDBC_USER", "postgres"),
                    envOr("PROJECTION_TEST_JDBC_PASSWORD", ""), "PROJECTION_TEST_JDBC_URL");
        }
        if (DockerClientFactory.instance().isDockerAvailable()) {
            PostgreSQLContainer container = new PostgreSQLContainer("postgres:17-alpine");
            container.start();
            Runtime.getRuntime().addShutdownHook(new Thread(container::stop));
            return new TestDatabase(container.getJdbcUrl(), container.getUsername(), container.getPassword(),
                    "Testcontainers PostgreSQL");
        }
        return embedded("embedded PostgreSQL (no PROJECTION_TEST_JDBC_URL, no Docker engine)");
    }

    private static TestDatabase embedded(String source) {
        try {
            // the library's defaults switch synchronous_commit off server-wide: on, as a production server has it, so
            // the claim's own switch (off for its transaction only) is what the tests see
            EmbeddedPostgres embedded = EmbeddedPostgres.builder().setServerConfig("synchronous_commit", "on").start();
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    embedded.close();
                } catch (IOException ignored) {
                    // the JVM is exiting; the data directory is a temporary one
                }
            }));
            return new TestDatabase(embedded.getJdbcUrl("postgres", "postgres"), "postgres", "postgres", source);
        } catch (IOException e) {
            throw new IllegalStateException("no test database: set PROJECTION_TEST_JDBC_URL, start Docker, "
                    + "or let the embedded PostgreSQL start (it failed)", e);
        }
    }

    private static String envOr(String name, String fallback) {
        String value = System.getenv(name);
        return value == null ? fallback : value;
    }

    public Connection connect() throws SQLException {
        return DriverManager.getConnection(jdbcUrl, user, password);
    }

    public String jdbcUrl() {
        return jdbcUrl;
    }

    public String user() {
        return user;
    }

    public String password() {
        return password;
    }

    public String source() {
        return source;
    }
}
