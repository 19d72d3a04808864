package dev.projections.ee;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * One connection of the projection datasource for one piece of SQL work, joining the caller's JTA transaction if
 * there is one, and so running at the datasource's isolation: on MariaDB without the snapshot check
 * ({@link dev.projections.store.PendingStore#outsideSnapshotChecks}), since the caller may have read before. An
 * {@link SQLException} becomes an {@link IllegalStateException} saying what could not be done.
 */
public final class SqlCalls {

    private SqlCalls() {
    }

    @FunctionalInterface
    public interface Work<T> {
        T run(Connection connection) throws SQLException;
    }

    public static <T> T call(EngineResources resources, String what, Work<T> work) {
        try (Connection connection = resources.dataSource().getConnection()) {
            return resources.store().outsideSnapshotChecks(connection, work::run);
        } catch (SQLException e) {
            throw new IllegalStateException("could not " + what + ": " + e.getMessage(), e);
        }
    }
}
