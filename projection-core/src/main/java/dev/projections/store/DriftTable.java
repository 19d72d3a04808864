package dev.projections.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Optional;

/**
 * {@code projection_drift_sample} and {@code projection_drift} (docs/design.md D58): where each projection's rolling
 * drift sample stands and which instance takes its next turn, and the drift each check found. A turn is taken by
 * moving {@code sampled_at} from the value read to the next one in one conditional update: of the instances that read
 * the same row one moves it, the others' updates wait for its commit and then match nothing, so one instance of the
 * cluster samples a projection at a time.
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

    private static final String TAKE_TURN = """
            UPDATE projection_drift_sample SET sampled_at = ? WHERE projection = ? AND sampled_at = ?
            """;

    private static final String MOVE = """
            UPDATE projection_drift_sample SET tenant_id = ?, after_id = ? WHERE projection = ?
            """;

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
        }
    }

    /** Takes the turn that {@code seen} allowed, moving its time to {@code next}; false when another instance did. */
    public boolean takeTurn(Connection connection, String projection, SampleTurn seen, Instant next)
            throws SQLException {
        try (PreparedStatement update = connection.prepareStatement(TAKE_TURN)) {
            update.setObject(1, dialect.timestamp(next));
            update.setString(2, projection);
            update.setObject(3, dialect.timestamp(seen.sampledAt()));
            return update.executeUpdate() == 1;
        }
    }

    /** The sample's next key is the first of {@code tenant} after {@code after} ({@code null}: its first). */
    public void moveTo(Connection connection, String projection, String tenant, String after) throws SQLException {
        try (PreparedStatement update = connection.prepareStatement(MOVE)) {
            update.setString(1, tenant);
            update.setString(2, after);
            update.setString(3, projection);
            update.executeUpdate();
        }
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
