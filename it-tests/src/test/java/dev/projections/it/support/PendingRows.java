package dev.projections.it.support;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

/** Writes a due mark straight into the pending table, as a crash after the commit would leave it: never announced. */
public final class PendingRows {

    private PendingRows() {
    }

    public static void insertDue(Connection connection, String projection, String id) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement("""
                INSERT INTO projection_pending (projection, tenant_id, entity_id, generation, mark_count, priority,
                                                attempts, available_at, first_marked_at)
                VALUES (?, '', ?, 'left-by-a-crash', 1, 0, 0, ?, ?)""")) {
            OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
            insert.setString(1, projection);
            insert.setString(2, id);
            insert.setObject(3, now);
            insert.setObject(4, now);
            insert.executeUpdate();
        }
    }
}
