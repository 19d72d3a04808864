package dev.projections.inspect;

import dev.projections.store.Dialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.time.Instant;
import java.util.Collections;

/** {@code projection_audit}: written in the transaction of the action it records, read newest first. */
public final class AuditLog {

    static final int MAX_DETAIL = 1000;

    private static final String INSERT = """
            INSERT INTO projection_audit (at, user_name, action, projection, tenant_id, entity_id, detail)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """;

    private static final String PAGE = """
            SELECT id, at, user_name, action, projection, tenant_id, entity_id, detail
              FROM projection_audit%s
             ORDER BY id DESC%s
            """;

    /* the oldest rows before the retention's start, by the time index, a batch at a time */
    private static final String OLDEST_BEFORE = "SELECT id FROM projection_audit WHERE at < ? ORDER BY at%s";

    private static final String DELETE = "DELETE FROM projection_audit WHERE id IN (%s)";

    /**
     * Deletes at most {@code limit} entries recorded before {@code before}, oldest first (docs/contract.md §12,
     * retention); returns how many went.
     */
    public int prune(Connection connection, Instant before, int limit) throws SQLException {
        Dialect dialect = Dialect.of(connection);
        List<Long> ids = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement(pruneSql(dialect, limit))) {
            select.setObject(1, dialect.timestamp(before));
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    ids.add(rows.getLong(1));
                }
            }
        }
        if (ids.isEmpty()) {
            return 0;
        }
        try (PreparedStatement delete = connection.prepareStatement(
                DELETE.formatted(String.join(", ", Collections.nCopies(ids.size(), "?"))))) {
            for (int i = 0; i < ids.size(); i++) {
                delete.setLong(i + 1, ids.get(i));
            }
            return delete.executeUpdate();
        }
    }

    /** The prune's selection on {@code dialect}: public for the test that reads its plan. */
    public String pruneSql(Dialect dialect, int limit) {
        return OLDEST_BEFORE.formatted(dialect.firstRows(limit));
    }

    public void record(Connection connection, AuditEntry entry) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement(INSERT)) {
            insert.setObject(1, Dialect.of(connection).timestamp(entry.at()));
            insert.setString(2, entry.user());
            insert.setString(3, entry.action());
            insert.setString(4, entry.projection());
            insert.setString(5, entry.tenant());
            insert.setString(6, entry.entityId());
            String detail = entry.detail();
            insert.setString(7, detail == null || detail.length() <= MAX_DETAIL ? detail : detail.substring(0, MAX_DETAIL));
            insert.executeUpdate();
        }
    }

    /** Up to {@code limit} entries older than {@code beforeId} ({@code null}: the newest). */
    public List<AuditEntry> latest(Connection connection, Long beforeId, int limit) throws SQLException {
        return page(connection, AuditFilter.ALL, beforeId, limit);
    }

    /** The SQL of {@link #page} on {@code dialect}: public for the test that reads its plan. */
    public String pageSql(Dialect dialect, AuditFilter filter, boolean fromId, int limit) {
        List<String> conditions = new ArrayList<>();
        if (filter.user() != null) {
            conditions.add("user_name = ?");
        }
        if (filter.action() != null) {
            conditions.add("action = ?");
        }
        if (filter.projection() != null) {
            conditions.add("projection = ?");
        }
        if (filter.from() != null) {
            conditions.add("at >= ?");
        }
        if (filter.to() != null) {
            conditions.add("at < ?");
        }
        if (fromId) {
            conditions.add("id < ?");
        }
        return PAGE.formatted(conditions.isEmpty() ? "" : " WHERE " + String.join(" AND ", conditions),
                dialect.firstRows(limit));
    }

    /**
     * Up to {@code limit} of {@code filter}'s entries older than {@code beforeId} ({@code null}: the newest), newest
     * first. Pages are keyset pages by id, so the page after a million entries costs what the first one costs.
     */
    public List<AuditEntry> page(Connection connection, AuditFilter filter, Long beforeId, int limit)
            throws SQLException {
        List<AuditEntry> entries = new ArrayList<>();
        Dialect dialect = Dialect.of(connection);
        try (PreparedStatement select = connection.prepareStatement(pageSql(dialect, filter, beforeId != null, limit))) {
            bind(select, dialect, filter, beforeId);
            try (ResultSet result = select.executeQuery()) {
                while (result.next()) {
                    entries.add(new AuditEntry(result.getLong(1), dialect.instant(result, 2), result.getString(3),
                            result.getString(4), result.getString(5), result.getString(6), result.getString(7),
                            result.getString(8)));
                }
            }
        }
        return entries;
    }

    /** Binds {@link #pageSql}'s parameters in its order. Package-private for the plan test. */
    static void bind(PreparedStatement select, Dialect dialect, AuditFilter filter, Long beforeId)
            throws SQLException {
        int index = 1;
        for (String value : new String[] {filter.user(), filter.action(), filter.projection()}) {
            if (value != null) {
                select.setString(index++, value);
            }
        }
        if (filter.from() != null) {
            select.setObject(index++, dialect.timestamp(filter.from()));
        }
        if (filter.to() != null) {
            select.setObject(index++, dialect.timestamp(filter.to()));
        }
        if (beforeId != null) {
            select.setLong(index, beforeId);
        }
    }
}
