package dev.projections.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code projection_node}: a row per instance that its sweep rewrites (docs/contract.md §12, the instances page), and
 * what the console reads of it. The same statements on every database: an update,
 * then an insert when the instance has no row yet (only its own sweep, one at a time, writes it).
 */
public final class NodeTable {

    private static final String UPDATE = """
            UPDATE projection_node
               SET started_at = ?, last_seen = ?, workers = ?, drainers_busy = ?, claims_held = ?,
                   refreshes_per_minute = ?, clock_skew_millis = ?, processing = ?
             WHERE instance_id = ?
            """;

    private static final String INSERT = """
            INSERT INTO projection_node (started_at, last_seen, workers, drainers_busy, claims_held,
                                         refreshes_per_minute, clock_skew_millis, processing, instance_id)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """;

    private static final String LIST = """
            SELECT instance_id, started_at, last_seen, workers, drainers_busy, claims_held, refreshes_per_minute,
                   clock_skew_millis, processing
              FROM projection_node
             ORDER BY instance_id
            """;

    /*
     * a row per instance and projection, a handful of each: no index needed. An instance with no row in
     * projection_node is of a release before the instances page (change set 013): it processes.
     */
    private static final String LIVE_DEPLOYMENTS = """
            SELECT i.instance_id, i.projection, n.processing
              FROM projection_instance i
              LEFT JOIN projection_node n ON n.instance_id = i.instance_id
             WHERE i.last_seen >= ?
            """;

    private static final String PRUNE = "DELETE FROM projection_node WHERE last_seen < ?";

    /** The width of {@code instance_id} and {@code claimed_by}. */
    public static final int MAX_INSTANCE_ID = 100;

    private final Dialect dialect;

    NodeTable(Dialect dialect) {
        this.dialect = dialect;
    }

    public void report(Connection connection, NodeReport report) throws SQLException {
        try (PreparedStatement update = connection.prepareStatement(UPDATE)) {
            if (bind(update, report).executeUpdate() > 0) {
                return;
            }
        }
        try (PreparedStatement insert = connection.prepareStatement(INSERT)) {
            bind(insert, report).executeUpdate();
        }
    }

    /**
     * {@code instanceId} as a row may hold it: the names come from the server ({@code jboss.node.name}, the host
     * name), so a name the columns cannot take is refused at deployment, naming its source, rather than at each claim.
     */
    public static String checkInstanceId(String instanceId, String source) {
        if (instanceId.length() > MAX_INSTANCE_ID) {
            throw new IllegalStateException(source + " names this instance in the projection tables and must be at most "
                    + MAX_INSTANCE_ID + " characters, was " + instanceId.length() + ": \"" + instanceId + "\"");
        }
        return instanceId;
    }

    private PreparedStatement bind(PreparedStatement statement, NodeReport report) throws SQLException {
        statement.setObject(1, dialect.timestamp(report.startedAt()));
        statement.setObject(2, dialect.timestamp(report.lastSeen()));
        statement.setInt(3, report.workers());
        statement.setInt(4, report.drainersBusy());
        statement.setInt(5, report.claimsHeld());
        statement.setLong(6, report.refreshesPerMinute());
        statement.setLong(7, report.clockSkew().toMillis());
        statement.setBoolean(8, report.processing());
        statement.setString(9, report.instanceId());
        return statement;
    }

    /** Every instance that reported and was not pruned, by name. */
    public List<NodeReport> list(Connection connection) throws SQLException {
        List<NodeReport> nodes = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement(LIST); ResultSet rows = select.executeQuery()) {
            while (rows.next()) {
                nodes.add(new NodeReport(rows.getString(1), dialect.instant(rows, 2), dialect.instant(rows, 3),
                        rows.getInt(4), rows.getInt(5), rows.getInt(6), rows.getLong(7),
                        Duration.ofMillis(rows.getLong(8)), rows.getBoolean(9)));
            }
        }
        return nodes;
    }

    /**
     * What each instance reported deploying at {@code since} or later, with its role (docs/design.md D54): the
     * heartbeat's {@code projection_instance} rows, whose time each sweep writes first, and the role its
     * {@code projection_node} row says (none: an earlier release's instance, which processes).
     */
    public List<LiveDeployment> liveDeployments(Connection connection, Instant since) throws SQLException {
        List<LiveDeployment> deployments = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement(LIVE_DEPLOYMENTS)) {
            select.setObject(1, dialect.timestamp(since));
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    boolean processing = rows.getBoolean(3) || rows.wasNull();
                    deployments.add(new LiveDeployment(rows.getString(1), rows.getString(2), processing));
                }
            }
        }
        return deployments;
    }

    /** Forgets instances not seen since {@code before} (gone for good: their trends are pruned alike). */
    public int prune(Connection connection, Instant before) throws SQLException {
        try (PreparedStatement delete = connection.prepareStatement(PRUNE)) {
            delete.setObject(1, dialect.timestamp(before));
            return delete.executeUpdate();
        }
    }
}
