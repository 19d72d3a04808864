package dev.projections.it.support;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/** Plain JDBC reads of the tables, for assertions that must not go through the code under test. */
public final class Rows {

    private final DataSource dataSource;

    public Rows(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    public long count(String sql, Object... parameters) {
        return ((Number) one(sql, parameters).get(0)).longValue();
    }

    public boolean exists(String sql, Object... parameters) {
        return !all(sql, parameters).isEmpty();
    }

    public List<Object> one(String sql, Object... parameters) {
        List<List<Object>> rows = all(sql, parameters);
        if (rows.size() != 1) {
            throw new AssertionError("expected one row from " + sql + ", got " + rows.size());
        }
        return rows.get(0);
    }

    public List<List<Object>> all(String sql, Object... parameters) {
        try (Connection connection = dataSource.getConnection();
             PreparedStatement statement = connection.prepareStatement(sql)) {
            for (int i = 0; i < parameters.length; i++) {
                statement.setObject(i + 1, parameters[i]);
            }
            try (ResultSet rs = statement.executeQuery()) {
                List<List<Object>> rows = new ArrayList<>();
                int columns = rs.getMetaData().getColumnCount();
                while (rs.next()) {
                    List<Object> row = new ArrayList<>();
                    for (int c = 1; c <= columns; c++) {
                        row.add(rs.getObject(c));
                    }
                    rows.add(row);
                }
                return rows;
            }
        } catch (SQLException e) {
            throw new AssertionError("query failed: " + sql + ": " + e.getMessage(), e);
        }
    }
}
