package dev.projections.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Collection;
import java.util.TreeSet;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code projection_instance}: which instance deploys which projection, last seen when (docs/contract.md §11), so the
 * console can tell marks nobody will refresh; and the database's clock, which the heartbeat compares with the
 * engine's. The heartbeat's upsert differs per database and is chosen here.
 */
public final class InstanceTable {

    private static final String POSTGRES_HEARTBEAT = """
            INSERT INTO projection_instance (instance_id, projection, last_seen) VALUES (?, ?, ?)
            ON CONFLICT (instance_id, projection) DO UPDATE SET last_seen = EXCLUDED.last_seen
            """;

    private static final String H2_HEARTBEAT = """
            MERGE INTO projection_instance (instance_id, projection, last_seen) KEY (instance_id, projection)
            VALUES (?, ?, ?)
            """;

    private static final String MARIADB_HEARTBEAT = """
            INSERT INTO projection_instance (instance_id, projection, last_seen) VALUES (?, ?, ?)
            ON DUPLICATE KEY UPDATE last_seen = VALUES(last_seen)
            """;

    private static final String DEPLOYED = """
            SELECT instance_id, projection FROM projection_instance WHERE last_seen >= ? ORDER BY instance_id, projection
            """;

    private final Dialect dialect;
    private final String heartbeat;

    InstanceTable(Dialect dialect) {
        this.dialect = dialect;
        this.heartbeat = dialect.pick(POSTGRES_HEARTBEAT, H2_HEARTBEAT, MARIADB_HEARTBEAT);
    }

    /** Records that {@code instanceId} deploys {@code projections} at {@code now} ({@code projection_instance}). */
    public void heartbeat(Connection connection, String instanceId, Collection<String> projections, Instant now)
            throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(heartbeat)) {
            for (String projection : new TreeSet<>(projections)) {
                statement.setString(1, instanceId);
                statement.setString(2, projection);
                statement.setObject(3, dialect.timestamp(now));
                statement.addBatch();
            }
            statement.executeBatch();
        }
    }

    /** The database's own clock, to compare with the engine's. */
    public Instant databaseTime(Connection connection) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(dialect.currentTimeQuery());
             ResultSet rows = select.executeQuery()) {
            rows.next();
            return dialect.instant(rows, 1);
        }
    }

    /** The projections each instance reported deploying at or after {@code since} ({@code projection_instance}). */
    public Map<String, TreeSet<String>> deployed(Connection connection, Instant since) throws SQLException {
        Map<String, TreeSet<String>> deployed = new TreeMap<>();
        try (PreparedStatement select = connection.prepareStatement(DEPLOYED)) {
            select.setObject(1, dialect.timestamp(since));
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    deployed.computeIfAbsent(rows.getString(1), id -> new TreeSet<>()).add(rows.getString(2));
                }
            }
        }
        return deployed;
    }

}
