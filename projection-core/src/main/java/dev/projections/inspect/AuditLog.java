package dev.projections.inspect;

import dev.projections.store.Dialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/** {@code projection_audit}: written in the transaction of the action it records, read newest first. */
public final class AuditLog {

    static final int MAX_DETAIL = 1000;

    private static final String INSERT = """
            INSERT INTO projection_audit (at, user_name, action, projection, tenant_id, entity_id, detail)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """;

    private static final String LATEST = """
            SELECT id, at, user_name, action, projection, tenant_id, entity_id, detail
              FROM projection_audit %s
             ORDER BY id DESC%s
            """;

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
        List<AuditEntry> entries = new ArrayList<>();
        Dialect dialect = Dialect.of(connection);
        try (PreparedStatement select = connection.prepareStatement(
                LATEST.formatted(beforeId == null ? "" : "WHERE id < ?", dialect.firstRows(limit)))) {
            if (beforeId != null) {
                select.setLong(1, beforeId);
            }
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
}
