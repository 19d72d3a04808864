package dev.projections.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * {@code projection_drift_sample} and {@code projection_drift} (docs/design.md D58): where each projection's rolling
 * drift sample stands and which instance takes its next turn, and the drift each check found. A turn is taken by
 * locking the sample's row with {@code SKIP LOCKED}: the instance that holds it walks, the others skip it at once
 * instead of waiting behind a turn's checks, so one instance of the cluster samples a projection at a time.
 */
public final class DriftTable {

    /** Where a projection's sample stands: the next key is the first of {@code tenant} after {@code after}. */
    public record SampleTurn(String tenant, String after, Instant sampledAt) {
    }

    /** Who found drift: a sampling turn of the sweep or a step of a verification run. */
    public enum FoundBy { SAMPLE, VERIFY }

    private static final String READ = """
            SELECT tenant_id, after_id, sampled_at FROM projection_drift_sample WHERE projection = ?
            """;

    private static final String POSTGRES_START = """
            INSERT INTO projection_drift_sample (projection, tenant_id, after_id, sampled_at) VALUES (?, '', NULL, ?)
            ON CONFLICT (projection) DO NOTHING
            """;

    private static final String MARIADB_START = """
            INSERT IGNORE INTO projection_drift_sample (projection, tenant_id, after_id, sampled_at)
            VALUES (?, '', NULL, ?)
            """;

    private static final String H2_START = """
            MERGE INTO projection_drift_sample t USING (SELECT CAST(? AS VARCHAR(100)) AS projection) s
               ON t.projection = s.projection
             WHEN NOT MATCHED THEN INSERT (projection, tenant_id, after_id, sampled_at) VALUES (s.projection, '', NULL, ?)
            """;

    private static final String LOCK = """
            SELECT tenant_id, after_id, sampled_at FROM projection_drift_sample WHERE projection = ?
               FOR UPDATE SKIP LOCKED
            """;

    private static final String ADVANCE = """
            UPDATE projection_drift_sample SET tenant_id = ?, after_id = ?, sampled_at = ? WHERE projection = ?
            """;

    /* by the queue's primary key (projection, tenant_id, entity_id) */
    private static final String WAITING = """
            SELECT entity_id FROM projection_pending WHERE projection = ? AND tenant_id = ? AND entity_id IN (%s)
            """;

    /** Ids asked about per statement: a page's drifted ids are few, a page of them is bounded all the same. */
    private static final int IN_LIST = 500;

    private static final String FOUND = """
            INSERT INTO projection_drift (projection, tenant_id, found_at, found_by, checked, drifted)
            VALUES (?, ?, ?, ?, ?, ?)
            """;

    private static final String DRIFTED_SINCE = """
            SELECT COALESCE(SUM(drifted), 0) FROM projection_drift WHERE projection = ? AND found_at >= ?
            """;

    /* rows are written only when a check found drift: few, and pruned with the audit log's retention */
    private static final String PRUNE = "DELETE FROM projection_drift WHERE found_at < ?";

    private final Dialect dialect;

    DriftTable(Dialect dialect) {
        this.dialect = dialect;
    }

    /** Where {@code projection}'s sample stands; empty until its first turn was prepared by {@link #start}. */
    public Optional<SampleTurn> read(Connection connection, String projection) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(READ)) {
            select.setString(1, projection);
            try (ResultSet rows = select.executeQuery()) {
                return rows.next()
                        ? Optional.of(new SampleTurn(rows.getString(1), rows.getString(2), dialect.instant(rows, 3)))
                        : Optional.empty();
            }
        }
    }

    /** Starts {@code projection}'s sample at its first key, its first turn due from {@code now}; kept if it exists. */
    public void start(Connection connection, String projection, Instant now) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement(dialect.pick(POSTGRES_START, H2_START,
                MARIADB_START))) {
            insert.setString(1, projection);
            insert.setObject(2, dialect.timestamp(now));
            insert.executeUpdate();
        } catch (SQLException e) {
            if (!dialect.isDuplicateKey(e)) { // H2's MERGE, of two instances starting at once: the other's row stands
                throw e;
            }
        }
    }

    /**
     * Locks {@code projection}'s sample for this transaction's turn and returns it as it stands; empty when another
     * instance holds it now (or there is none).
     */
    public Optional<SampleTurn> lock(Connection connection, String projection) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(dialect.lockingRead(connection, LOCK))) {
            select.setString(1, projection);
            try (ResultSet rows = select.executeQuery()) {
                return rows.next()
                        ? Optional.of(new SampleTurn(rows.getString(1), rows.getString(2), dialect.instant(rows, 3)))
                        : Optional.empty();
            }
        }
    }

    /** The locked sample's next key is the first of {@code tenant} after {@code after}, its time {@code sampledAt}. */
    public void advance(Connection connection, String projection, String tenant, String after, Instant sampledAt)
            throws SQLException {
        try (PreparedStatement update = connection.prepareStatement(ADVANCE)) {
            update.setString(1, tenant);
            update.setString(2, after);
            update.setObject(3, dialect.timestamp(sampledAt));
            update.setString(4, projection);
            update.executeUpdate();
        }
    }

    /**
     * Of {@code ids} of {@code projection} and {@code tenant}, those with a mark waiting: their refresh is coming and
     * repairs them, so they are not drift found (a live change not refreshed yet, a failing or parked key, a key a
     * verification already marked).
     */
    public Set<String> waiting(Connection connection, String projection, String tenant, List<String> ids)
            throws SQLException {
        Set<String> waiting = new HashSet<>();
        for (int from = 0; from < ids.size(); from += IN_LIST) {
            List<String> chunk = ids.subList(from, Math.min(ids.size(), from + IN_LIST));
            try (PreparedStatement select = connection.prepareStatement(WAITING.formatted(
                    String.join(", ", Collections.nCopies(chunk.size(), "?"))))) {
                int i = 1;
                select.setString(i++, projection);
                select.setString(i++, tenant);
                for (String id : chunk) {
                    select.setString(i++, id);
                }
                try (ResultSet rows = select.executeQuery()) {
                    while (rows.next()) {
                        waiting.add(rows.getString(1));
                    }
                }
            }
        }
        return waiting;
    }

    /** Records that a check of {@code checked} keys found {@code drifted} of them drifted. */
    public void found(Connection connection, String projection, String tenant, Instant at, FoundBy by, long checked,
                      long drifted) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement(FOUND)) {
            insert.setString(1, projection);
            insert.setString(2, tenant);
            insert.setObject(3, dialect.timestamp(at));
            insert.setString(4, by.name());
            insert.setLong(5, checked);
            insert.setLong(6, drifted);
            insert.executeUpdate();
        }
    }

    /** The keys of {@code projection} found drifted since {@code since}, by samples and verifications. */
    public long driftedSince(Connection connection, String projection, Instant since) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(DRIFTED_SINCE)) {
            select.setString(1, projection);
            select.setObject(2, dialect.timestamp(since));
            try (ResultSet rows = select.executeQuery()) {
                rows.next();
                return rows.getLong(1);
            }
        }
    }

    /** Deletes what was found before {@code before}; how many rows. */
    public int prune(Connection connection, Instant before) throws SQLException {
        try (PreparedStatement delete = connection.prepareStatement(PRUNE)) {
            delete.setObject(1, dialect.timestamp(before));
            return delete.executeUpdate();
        }
    }
}
