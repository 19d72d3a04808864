package dev.projections.store;

import static dev.projections.store.Statements.bindKey;

import dev.projections.MarkKey;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Reads of {@code projection_pending} by key, without a lock, for others than the drainers' claim and ack: the
 * read-your-writes checks (docs/contract.md §14), the trace contexts a traced refresh links to, and the test support's
 * idle check. Each statement finds its rows by the primary key (the plan tests), so its cost does not grow with the
 * table; the same text on every database.
 */
public final class PendingChecks {

    private final Dialect dialect;
    /** The instance whose commits are checked: a row it first marked is compared in its own clock. */
    private final String holder;

    private static final String ANY_DUE = """
            SELECT 1 FROM projection_pending
             WHERE projection IN (%s) AND available_at <= ? AND (claimed_until IS NULL OR claimed_until <= ?)
               AND NOT EXISTS (SELECT 1 FROM projection_control c
                                WHERE c.projection = projection_pending.projection AND c.paused)%s
            """;

    PendingChecks(Dialect dialect, String holder) {
        this.dialect = dialect;
        this.holder = holder;
    }

    /** Keys per statement of {@link #stillPending}: a bound on its text and parameters on every database. */
    static final int KEYS_PER_CHECK = 500;

    /* a row first marked by this instance (its clock) against the commit's time; any other against it plus the margin */
    private static final String STILL_PENDING = """
            SELECT projection, tenant_id, entity_id FROM projection_pending
             WHERE (projection, tenant_id, entity_id) IN (%s)
               AND (first_marked_by = ? AND first_marked_at <= ?
                    OR (first_marked_by IS NULL OR first_marked_by <> ?) AND first_marked_at <= ?)
            """;

    /**
     * Those of {@code keys} that still wait for a refresh that read the state committed at {@code committedBefore}
     * (docs/contract.md §14): their row is there and was first marked at or before it. A key is done when its row is
     * gone — from that commit on the row held that commit's generation or a later one, and an ack deletes a row only
     * with the generation its claim read, so the refresh ran after that commit (the other deletes are an operator's
     * skip of a parked mark and the purge of an undeployed projection's marks) — or when its row was first marked
     * later: inserted after such an ack, or re-marked by a missed ack to the time of a claim that began later.
     * Parked and backing-off marks are still pending. Read without a lock, at most {@link #KEYS_PER_CHECK} keys a
     * statement, each found by the primary key.
     */
    public Set<MarkKey> stillPending(Connection connection, Collection<MarkKey> keys, Instant committedBefore)
            throws SQLException {
        return stillPending(connection, keys, committedBefore, Duration.ZERO);
    }

    /**
     * As {@link #stillPending(Connection, Collection, Instant)} for a commit this instance made at {@code committedAt}
     * (its clock): a row this instance first marked ({@code first_marked_by}, its clock too) is compared with that
     * time, any other row with that time plus {@code margin}, how far another instance's clock may run ahead of this
     * one's (docs/contract.md §4 "Time"). A key marked again during each of its refreshes on this instance, whose
     * missed ack sets the row to the claim's time, is then done once a claim that began after the commit missed it,
     * not only once the margin passed (engine review E6).
     */
    public Set<MarkKey> stillPending(Connection connection, Collection<MarkKey> keys, Instant committedAt,
                                               Duration margin) throws SQLException {
        Set<MarkKey> pending = new HashSet<>();
        List<MarkKey> all = new ArrayList<>(keys);
        for (int from = 0; from < all.size(); from += KEYS_PER_CHECK) {
            List<MarkKey> chunk = all.subList(from, Math.min(all.size(), from + KEYS_PER_CHECK));
            try (PreparedStatement select = connection.prepareStatement(stillPendingSql(chunk.size()))) {
                int i = 1;
                for (MarkKey key : chunk) {
                    i = bindKey(select, i, key);
                }
                select.setString(i++, holder);
                select.setObject(i++, dialect.timestamp(committedAt));
                select.setString(i++, holder);
                select.setObject(i, dialect.timestamp(committedAt.plus(margin)));
                try (ResultSet rows = select.executeQuery()) {
                    while (rows.next()) {
                        pending.add(new MarkKey(rows.getString(1), rows.getString(2), rows.getString(3)));
                    }
                }
            }
        }
        return pending;
    }

    private static final String TRACEPARENTS = """
            SELECT DISTINCT traceparent FROM projection_pending
             WHERE projection = ? AND tenant_id = ? AND entity_id IN (%s) AND traceparent IS NOT NULL
            """;

    /**
     * The trace contexts of the business transactions that marked {@code marks} (one projection's and tenant's, as a
     * refresh takes them), distinct, at most {@code limit}: read only when refreshes are traced, by the primary key,
     * without a lock, in the refresh's own transaction.
     */
    public List<String> traceparents(Connection connection, List<ClaimedMark> marks, int limit) throws SQLException {
        Set<String> found = new LinkedHashSet<>();
        for (int from = 0; from < marks.size() && found.size() < limit; from += KEYS_PER_CHECK) {
            List<ClaimedMark> chunk = marks.subList(from, Math.min(marks.size(), from + KEYS_PER_CHECK));
            try (PreparedStatement select = connection.prepareStatement(
                    TRACEPARENTS.formatted(placeholders(chunk.size())))) {
                select.setString(1, chunk.get(0).key().projection());
                select.setString(2, chunk.get(0).key().tenantId());
                for (int i = 0; i < chunk.size(); i++) {
                    select.setString(i + 3, chunk.get(i).key().entityId());
                }
                try (ResultSet rows = select.executeQuery()) {
                    while (rows.next() && found.size() < limit) {
                        found.add(rows.getString(1));
                    }
                }
            }
        }
        return List.copyOf(found);
    }

    /* ordered by the key, so that the planner reads the primary key under the limit whatever its estimates: without,
       it may scan the table for a projection it thinks has many rows, and scan all of it when that one has none */
    private static final String ANY_MARK = """
            SELECT 1 FROM projection_pending WHERE projection = ? ORDER BY projection, tenant_id, entity_id%s""";

    /**
     * Whether {@code projection} has any mark at all — due, leased, backing off or parked: the test support's idle
     * check (docs/contract.md §14). The primary key's first column, one row at most.
     */
    public boolean hasMarks(Connection connection, String projection) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(anyMarkSql())) {
            select.setString(1, projection);
            try (ResultSet rows = select.executeQuery()) {
                return rows.next();
            }
        }
    }

    /** The idle check's statement (package-private for the plan test). */
    String anyMarkSql() {
        return ANY_MARK.formatted(dialect.firstRows(1));
    }

    /** The check of {@code keys} keys (package-private for the plan test). */
    String stillPendingSql(int keys) {
        return STILL_PENDING.formatted(String.join(", ", Collections.nCopies(keys, "(?, ?, ?)")));
    }

    /** Whether any mark of {@code projections} is due and unleased at {@code now}. */
    public boolean hasDue(Connection connection, Collection<String> projections, Instant now) throws SQLException {
        if (projections.isEmpty()) {
            return false;
        }
        try (PreparedStatement select = connection.prepareStatement(anyDueSql(projections.size()))) {
            int i = 1;
            for (String projection : projections) {
                select.setString(i++, projection);
            }
            select.setObject(i++, dialect.timestamp(now));
            select.setObject(i, dialect.timestamp(now));
            try (ResultSet rows = select.executeQuery()) {
                return rows.next();
            }
        }
    }

    /** The due check for {@code projections} projections (public to the plan tests). */
    String anyDueSql(int projections) {
        return ANY_DUE.formatted(placeholders(projections), dialect.firstRows(1));
    }

    private static String placeholders(int n) {
        return String.join(", ", Collections.nCopies(n, "?"));
    }
}
