package dev.projections.it.instances;

import dev.projections.it.support.Deployments;
import dev.projections.it.support.DemoReadModels;
import dev.projections.testsupport.TestDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jboss.shrinkwrap.api.exporter.ZipExporter;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;

/**
 * What the multi-process fault tests share: the EAR with the probe, a database of their own, the settings
 * (short leases), and the checks of the invariant — no mark left, every read-model row equal to what SQL
 * computes from the write tables, no two overlapping refreshes of one key.
 */
final class FaultSetup {

    /** Leases short enough to wait for (the issue asks for 5–10 s). */
    static final String LEASE = "10s";

    private FaultSetup() {
    }

    /** The demo EAR with the probe projection and its endpoint, written to {@code target/}. */
    static Path ear() {
        Path file = Path.of("target", "faults.ear").toAbsolutePath();
        EnterpriseArchive ear = Deployments.ear(Map.of("projection.sweep-interval", "1s",
                        "projection.lease-time", LEASE, "projection.retry-delay", "1s",
                        "projection.max-retry-delay", "2s", "projection.workers", "3", "projection.batch-size", "10"),
                List.of(ProbeProjection.class), ProbeResource.class);
        ear.as(ZipExporter.class).exportTo(file.toFile(), true);
        return file;
    }

    /** The system properties of a server on {@code jdbcUrl}, with console users and the probe's folder. */
    static Map<String, String> serverProperties(String jdbcUrl, Path probeDir, long delayMillis) {
        TestDatabase database = TestDatabase.get();
        return serverProperties(jdbcUrl, database.user(), database.password(), probeDir, delayMillis);
    }

    static Map<String, String> serverProperties(String jdbcUrl, String user, String password, Path probeDir,
                                                long delayMillis) {
        Map<String, String> properties = new HashMap<>();
        properties.put("projection.db.url", jdbcUrl);
        properties.put("projection.db.user", user);
        if (!password.isEmpty()) {
            properties.put("projection.db.password", password); // WildFly refuses an empty one
        }
        properties.put("projection.console.admin-password", "faults-admin");
        properties.put("probe.dir", probeDir.toString());
        properties.put("probe.delay-ms", String.valueOf(delayMillis));
        return properties;
    }

    /** A fresh database {@code name} on the test PostgreSQL server; returns its JDBC URL. */
    static String freshDatabase(String name) throws SQLException {
        TestDatabase database = TestDatabase.get();
        try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
            statement.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
            statement.execute("CREATE DATABASE " + name);
        }
        String url = database.jdbcUrl().replaceFirst("/[^/?]+(\\?|$)", "/" + name + "$1");
        createProbeTables(url);
        return url;
    }

    static void createProbeTables(String url) throws SQLException {
        try (Connection connection = connect(url)) {
            createProbeTables(connection);
        }
    }

    static void createProbeTables(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute("""
                    CREATE TABLE IF NOT EXISTS probe_source (tenant_id VARCHAR(64), id VARCHAR(200), value BIGINT NOT NULL,
                                               PRIMARY KEY (tenant_id, id))""");
            statement.execute("""
                    CREATE TABLE IF NOT EXISTS probe_model (tenant_id VARCHAR(64), id VARCHAR(200), value BIGINT NOT NULL,
                                              PRIMARY KEY (tenant_id, id))""");
            statement.execute("""
                    CREATE TABLE IF NOT EXISTS probe_window (n BIGSERIAL PRIMARY KEY, tenant_id VARCHAR(64), id VARCHAR(200),
                                               node VARCHAR(100), value BIGINT, started_at TIMESTAMPTZ,
                                               finished_at TIMESTAMPTZ)""");
        }
    }

    static Path probeDir(String name) throws java.io.IOException {
        Path dir = Path.of("target", "instances", name).toAbsolutePath();
        Files.createDirectories(dir);
        try (var files = Files.list(dir)) {
            for (Path file : files.toList()) {
                Files.delete(file);
            }
        }
        return dir;
    }

    static Connection connect(String url) throws SQLException {
        TestDatabase database = TestDatabase.get();
        return DriverManager.getConnection(url, database.user(), database.password());
    }

    static long count(String url, String sql) {
        try (Connection connection = connect(url); Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery(sql)) {
            return rows.next() ? rows.getLong(1) : 0;
        } catch (SQLException e) {
            throw new IllegalStateException(sql, e);
        }
    }

    static final String PENDING = "SELECT COUNT(*) FROM projection_pending";

    /** Read-model rows that differ from what SQL computes from the write tables, missing or extra ones included. */
    static final String ORDER_SEARCH_WRONG = DemoReadModels.ORDER_SEARCH_WRONG;

    static final String CUSTOMER_STATS_WRONG = DemoReadModels.CUSTOMER_STATS_WRONG;

    static final String PROBE_WRONG = """
            SELECT COUNT(*) FROM probe_source p FULL JOIN probe_model m ON m.tenant_id = p.tenant_id AND m.id = p.id
             WHERE p.id IS NULL OR m.id IS NULL OR m.value <> p.value""";

    /** Pairs of committed refreshes of one key whose windows overlap (on any two servers, or one). */
    static final String OVERLAPS = """
            SELECT COUNT(*) FROM probe_window a JOIN probe_window b
              ON a.tenant_id = b.tenant_id AND a.id = b.id AND a.n < b.n
             AND a.started_at < b.finished_at AND b.started_at < a.finished_at""";
}
