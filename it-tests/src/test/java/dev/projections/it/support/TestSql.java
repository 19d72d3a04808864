package dev.projections.it.support;

import dev.projections.testsupport.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;

/** Plain JDBC on the test database from the test JVM, for client-side tests that check or set up the tables. */
public final class TestSql {

    private TestSql() {
    }

    /** The first column of the first row as a number; 0 when there is no row. */
    public static long count(String sql, Object... parameters) {
        try (Connection connection = TestDatabase.get().connect();
             PreparedStatement statement = connection.prepareStatement(sql)) {
            for (int i = 0; i < parameters.length; i++) {
                statement.setObject(i + 1, parameters[i]);
            }
            try (ResultSet rs = statement.executeQuery()) {
                return rs.next() ? rs.getLong(1) : 0;
            }
        } catch (Exception e) {
            throw new IllegalStateException(sql, e);
        }
    }

    /**
     * The tables' statistics brought up to date after a bulk load by plain SQL, as autovacuum's analyze would be soon
     * after on a production database: this machine kind's PostgreSQL runs without it (docs/pitfalls.md #29), and each
     * class starts from fresh tables, so without this a 100,000-row load is read on the statistics of empty tables.
     */
    public static void analyze(String... tables) {
        boolean mariadb = TestDatabase.get().jdbcUrl().startsWith("jdbc:mariadb:");
        execute((mariadb ? "ANALYZE TABLE " : "ANALYZE ") + String.join(", ", tables));
    }

    public static void execute(String sql) {
        try (Connection connection = TestDatabase.get().connect(); Statement statement = connection.createStatement()) {
            statement.execute(sql);
        } catch (Exception e) {
            throw new IllegalStateException(sql, e);
        }
    }
}
