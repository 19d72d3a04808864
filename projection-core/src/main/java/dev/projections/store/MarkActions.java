package dev.projections.store;

import static dev.projections.store.Statements.bindKey;

import dev.projections.FailedRefresh;
import dev.projections.MarkKey;
import dev.projections.ParkedSelection;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.TreeSet;

/**
 * What an operator does to pending marks (docs/contract.md §6, §11, §12): retries of failing marks, resuming or
 * skipping parked ones, purging those of a projection no instance deploys any more. Every action first reads the
 * keys it selects, then changes them one row at a time in the engine's key order (not the database's collation), as
 * every statement that locks several pending rows must (docs/contract.md §3); each change re-checks its condition,
 * so a mark that changed since it was read is left alone.
 */
public final class MarkActions {

    private static final String PARKED_MARKS = """
            SELECT tenant_id, entity_id, attempts, last_error, last_failed_at, generation FROM projection_pending
             WHERE projection = ? AND parked_at IS NOT NULL""";

    private static final String RESUME_PARKED = """
            UPDATE projection_pending SET available_at = ?, parked_at = NULL, parked_generation = NULL
             WHERE projection = ? AND tenant_id = ? AND entity_id = ? AND parked_at IS NOT NULL
            """;

    /* the generation read with the selection: a change committed during the skip keeps its mark */
    private static final String SKIP_PARKED = """
            DELETE FROM projection_pending
             WHERE projection = ? AND tenant_id = ? AND entity_id = ? AND parked_at IS NOT NULL AND generation = ?
            """;

    private static final String FAILING_KEYS = "SELECT tenant_id, entity_id FROM projection_pending"
            + " WHERE projection = ? AND attempts > 0 AND parked_at IS NULL";

    /* a parked mark retried by its key is resumed */
    private static final String MAKE_DUE = """
            UPDATE projection_pending SET available_at = ?, parked_at = NULL, parked_generation = NULL
             WHERE projection = ? AND tenant_id = ? AND entity_id = ? AND attempts > 0
            """;

    /* "retry failed": a mark parked since the keys were read stays parked */
    private static final String MAKE_FAILING_DUE = """
            UPDATE projection_pending SET available_at = ?
             WHERE projection = ? AND tenant_id = ? AND entity_id = ? AND attempts > 0 AND parked_at IS NULL
            """;

    private static final String ORPHAN_KEYS = """
            SELECT tenant_id, entity_id FROM projection_pending
             WHERE projection = ? AND (claimed_until IS NULL OR claimed_until <= ?)
               AND NOT EXISTS (SELECT 1 FROM projection_instance i WHERE i.projection = ? AND i.last_seen > ?)
            """;

    private static final String PURGE_ONE = """
            DELETE FROM projection_pending
             WHERE projection = ? AND tenant_id = ? AND entity_id = ? AND (claimed_until IS NULL OR claimed_until <= ?)
               AND NOT EXISTS (SELECT 1 FROM projection_instance i WHERE i.projection = ? AND i.last_seen > ?)
            """;

    private final Dialect dialect;

    MarkActions(Dialect dialect) {
        this.dialect = dialect;
    }

    /** Makes the selected parked marks due at {@code now}, keeping attempts, one at a time in key order. */
    public int resumeParked(Connection connection, ParkedSelection selection, Instant now) throws SQLException {
        int resumed = 0;
        try (PreparedStatement update = connection.prepareStatement(RESUME_PARKED)) {
            for (Parked mark : parkedMarks(connection, selection)) {
                update.setObject(1, dialect.timestamp(now));
                bindKey(update, 2, new MarkKey(selection.projection(), mark.failure().tenant(), mark.failure().id()));
                resumed += update.executeUpdate();
            }
        }
        return resumed;
    }

    /** Deletes the selected parked marks, one at a time in key order; returns them as they were (for the audit). */
    public List<FailedRefresh> skipParked(Connection connection, ParkedSelection selection) throws SQLException {
        List<FailedRefresh> skipped = new ArrayList<>();
        try (PreparedStatement delete = connection.prepareStatement(SKIP_PARKED)) {
            for (Parked mark : parkedMarks(connection, selection)) {
                int i = bindKey(delete, 1, new MarkKey(selection.projection(), mark.failure().tenant(), mark.failure().id()));
                delete.setString(i, mark.generation());
                if (delete.executeUpdate() == 1) {
                    skipped.add(mark.failure());
                }
            }
        }
        return skipped;
    }

    /**
     * The selected parked marks in the engine's key order: the statements that follow change them one at a time in
     * that order, as every statement locking several pending rows must (docs/contract.md §3).
     */
    private record Parked(FailedRefresh failure, String generation) {
    }

    private List<Parked> parkedMarks(Connection connection, ParkedSelection selection)
            throws SQLException {
        StringBuilder sql = new StringBuilder(PARKED_MARKS);
        List<Object> parameters = new ArrayList<>(List.of(selection.projection()));
        if (selection.tenant() != null) {
            sql.append(" AND tenant_id = ?");
            parameters.add(selection.tenant());
        }
        if (selection.entityId() != null) {
            sql.append(" AND entity_id = ?");
            parameters.add(selection.entityId());
        }
        if (selection.errorPrefix() != null) {
            sql.append(" AND last_error LIKE ? ESCAPE '!'");
            parameters.add(LikePattern.startingWith(selection.errorPrefix()));
        }
        if (selection.parkedBy() != null) {
            sql.append(" AND parked_at <= ?");
            parameters.add(dialect.timestamp(selection.parkedBy()));
        }
        List<Parked> marks = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement(sql.toString())) {
            for (int i = 0; i < parameters.size(); i++) {
                select.setObject(i + 1, parameters.get(i));
            }
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    marks.add(new Parked(new FailedRefresh(rows.getString(1), rows.getString(2), rows.getInt(3),
                            rows.getString(4), dialect.instant(rows, 5), null), rows.getString(6)));
                }
            }
        }
        marks.sort(Comparator.comparing((Parked m) -> new MarkKey(selection.projection(), m.failure().tenant(),
                m.failure().id())));
        return marks;
    }

    /** Makes failing marks due at {@code now}, keeping attempts; all of {@code projection}, locked in key order. */
    public int retryFailed(Connection connection, String projection, Instant now) throws SQLException {
        return retryFailed(connection, projection, null, null, now);
    }

    /**
     * The same for the failing marks of one tenant ({@code ""} for none; {@code null}: every tenant) whose last error
     * starts with {@code errorPrefix} ({@code null}: any error).
     */
    public int retryFailed(Connection connection, String projection, String tenant, String errorPrefix, Instant now)
            throws SQLException {
        StringBuilder sql = new StringBuilder(FAILING_KEYS);
        List<Object> parameters = new ArrayList<>(List.of(projection));
        if (tenant != null) {
            sql.append(" AND tenant_id = ?");
            parameters.add(tenant);
        }
        if (errorPrefix != null) {
            sql.append(" AND last_error LIKE ? ESCAPE '!'");
            parameters.add(LikePattern.startingWith(errorPrefix));
        }
        List<MarkKey> keys = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement(sql.toString())) {
            for (int i = 0; i < parameters.size(); i++) {
                select.setObject(i + 1, parameters.get(i));
            }
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    keys.add(new MarkKey(projection, rows.getString(1), rows.getString(2)));
                }
            }
        }
        keys.sort(null);
        int retried = 0;
        try (PreparedStatement update = connection.prepareStatement(MAKE_FAILING_DUE)) {
            for (MarkKey key : keys) {
                update.setObject(1, dialect.timestamp(now));
                bindKey(update, 2, key);
                retried += update.executeUpdate();
            }
        }
        return retried;
    }

    /** The same for one key; false when it has no failing mark. */
    public boolean retry(Connection connection, MarkKey key, Instant now) throws SQLException {
        try (PreparedStatement update = connection.prepareStatement(MAKE_DUE)) {
            update.setObject(1, dialect.timestamp(now));
            bindKey(update, 2, key);
            return update.executeUpdate() == 1;
        }
    }

    /**
     * Deletes the marks of {@code projection} while no instance has reported deploying it within {@code window}
     * (checked again by each delete) and no lease holds them; returns how many. One row at a time in key order,
     * like every statement that locks several pending rows (docs/contract.md §3).
     */
    public int purgeOrphaned(Connection connection, String projection, Instant now, Duration window)
            throws SQLException {
        TreeSet<MarkKey> keys = new TreeSet<>();
        try (PreparedStatement select = connection.prepareStatement(ORPHAN_KEYS)) {
            select.setString(1, projection);
            select.setObject(2, dialect.timestamp(now));
            select.setString(3, projection);
            select.setObject(4, dialect.timestamp(now.minus(window)));
            try (ResultSet result = select.executeQuery()) {
                while (result.next()) {
                    keys.add(new MarkKey(projection, result.getString(1), result.getString(2)));
                }
            }
        }
        int purged = 0;
        try (PreparedStatement delete = connection.prepareStatement(PURGE_ONE)) {
            for (MarkKey key : keys) {
                delete.setString(1, projection);
                delete.setString(2, key.tenantId());
                delete.setString(3, key.entityId());
                delete.setObject(4, dialect.timestamp(now));
                delete.setString(5, projection);
                delete.setObject(6, dialect.timestamp(now.minus(window)));
                purged += delete.executeUpdate();
            }
        }
        return purged;
    }
}
