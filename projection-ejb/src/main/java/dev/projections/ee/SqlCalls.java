package dev.projections.ee;

import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * One connection of the projection datasource for one piece of SQL work, joining the caller's JTA transaction if
 * there is one; an {@link SQLException} becomes an {@link IllegalStateException} saying what could not be done.
 */
public final class SqlCalls {

    private SqlCalls() {
    }

    @FunctionalInterface
    public interface Work<T> {
        T run(Connection connection) throws SQLException;
    }

    public static <T> T call(DataSource dataSource, String what, Work<T> work) {
        try (Connection connection = dataSource.getConnection()) {
            return work.run(connection);
        } catch (SQLException e) {
            throw new IllegalStateException("could not " + what + ": " + e.getMessage(), e);
        }
    }
}
