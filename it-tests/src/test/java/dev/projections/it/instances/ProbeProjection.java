package dev.projections.it.instances;

import dev.projections.Projection;
import dev.projections.demo.tenancy.DemoTenancy;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import javax.sql.DataSource;

/**
 * The fault tests' probe: copies {@code probe_source.value} to {@code probe_model} for the mark's tenant and id,
 * and records the refresh's window (database clock, start and end) with the server's {@code jboss.node.name} in
 * {@code probe_window}, all in the refresh transaction: a window exists only for a refresh that committed, so
 * two overlapping windows of one key are two refreshes that ran at once.
 * <p>
 * {@code -Dprobe.delay-ms} slows every refresh (a server with refreshes in flight); a file
 * {@code <probe.dir>/gate-<point>} makes the next refresh that passes {@code point} write
 * {@code reached-<point>-<id>} and hang there, for the test to kill the server at that point:
 * {@code refresh-start} (claimed, nothing read yet), {@code mid-refresh} (read model written, not committed),
 * {@code before-commit} (the ack statement run too; the transaction is committing).
 */
@ApplicationScoped
public class ProbeProjection implements Projection {

    public static final String NAME = "probe";

    @Resource(lookup = "java:jboss/datasources/ProjectionDS")
    DataSource dataSource;

    @Resource
    TransactionSynchronizationRegistry transactions;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public void refresh(String id) throws Exception {
        String tenant = DemoTenancy.current();
        try (Connection connection = dataSource.getConnection()) {
            Timestamp started = now(connection);
            gate("refresh-start", id);
            long value = 0;
            try (PreparedStatement select = connection.prepareStatement(
                    "SELECT value FROM probe_source WHERE tenant_id = ? AND id = ?")) {
                select.setString(1, tenant);
                select.setString(2, id);
                try (ResultSet rows = select.executeQuery()) {
                    if (rows.next()) {
                        value = rows.getLong(1);
                    }
                }
            }
            Thread.sleep(Long.getLong("probe.delay-ms", 0));
            try (PreparedStatement upsert = connection.prepareStatement("""
                    INSERT INTO probe_model (tenant_id, id, value) VALUES (?, ?, ?)
                    ON CONFLICT (tenant_id, id) DO UPDATE SET value = EXCLUDED.value""")) {
                upsert.setString(1, tenant);
                upsert.setString(2, id);
                upsert.setLong(3, value);
                upsert.executeUpdate();
            }
            gate("mid-refresh", id);
            try (PreparedStatement window = connection.prepareStatement("""
                    INSERT INTO probe_window (tenant_id, id, node, value, started_at, finished_at)
                    VALUES (?, ?, ?, ?, ?, clock_timestamp())""")) {
                window.setString(1, tenant);
                window.setString(2, id);
                window.setString(3, System.getProperty("jboss.node.name"));
                window.setLong(4, value);
                window.setTimestamp(5, started);
                window.executeUpdate();
            }
        }
        if (gateIsSet("before-commit")) {
            transactions.registerInterposedSynchronization(new Synchronization() {
                @Override
                public void beforeCompletion() {
                    gate("before-commit", id);
                }

                @Override
                public void afterCompletion(int status) {
                }
            });
        }
    }

    private static Timestamp now(Connection connection) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement("SELECT clock_timestamp()");
             ResultSet rows = select.executeQuery()) {
            rows.next();
            return rows.getTimestamp(1);
        }
    }

    private static boolean gateIsSet(String point) {
        String dir = System.getProperty("probe.dir");
        return dir != null && Files.exists(Path.of(dir, "gate-" + point));
    }

    /** At a set gate: tells the test where it is and hangs until the server is killed. */
    private static void gate(String point, String id) {
        if (!gateIsSet(point)) {
            return;
        }
        try {
            Files.writeString(Path.of(System.getProperty("probe.dir"), "reached-" + point + "-" + id), id);
            Thread.sleep(Long.MAX_VALUE);
        } catch (IOException | InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }
}
