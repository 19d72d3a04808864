package dev.projections.ops;

import dev.projections.store.Tables;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * One connection of the projection datasource for one piece of an operation's SQL, joining the caller's
 * transaction where the datasource enlists in one (a JTA datasource does), and so at the datasource's isolation:
 * on MariaDB without the snapshot check ({@link Tables#outsideSnapshotChecks()}), since the caller may have
 * read before. An {@link SQLException} becomes a {@link DatabaseFailure} saying what could not be done.
 */
@FunctionalInterface
public interface Sql {

    @FunctionalInterface
    interface Work<T> {
        T run(Connection connection) throws SQLException;
    }

    /** Runs {@code work} on a connection of its own; {@code what} names it in the error ("retry failing marks of x"). */
    <T> T call(String what, Work<T> work);

    /** SQL on connections of {@code dataSource}, with {@code store}'s handling of the database's snapshot checks. */
    static Sql on(DataSource dataSource, Tables store) {
        Tables.SqlWork<Connection> outsideSnapshotChecks = store.outsideSnapshotChecks();
        return new Sql() {
            @Override
            public <T> T call(String what, Work<T> work) {
                try (Connection connection = dataSource.getConnection()) {
                    return work.run(outsideSnapshotChecks.run(connection));
                } catch (SQLException e) {
                    throw new DatabaseFailure(what, e);
                }
            }
        };
    }
}
