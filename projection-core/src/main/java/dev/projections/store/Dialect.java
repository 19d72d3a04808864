package dev.projections.store;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * What differs between the databases the product's tables live on, each difference in one place. Statements that
 * differ as a whole belong to their table: the pending queue's upsert, claim and ack to the dialect's subclass of
 * {@link PendingQueue}; the control and instance tables' upserts to {@link ControlTable} and {@link InstanceTable},
 * chosen by dialect side by side. The rest of every statement is shared, and asks this for its row limit, its
 * timestamps and its error codes.
 * MariaDB and MySQL 8 are one dialect: the product uses nothing that differs between them but the name of a
 * collation, which the changelog chooses (docs/design.md D28).
 */
public enum Dialect {

    POSTGRESQL, H2, MARIADB;

    /** The dialect of a JDBC driver's {@code DatabaseMetaData.getDatabaseProductName()}. */
    public static Dialect of(String databaseProductName) {
        return switch (databaseProductName) {
            case "PostgreSQL" -> POSTGRESQL;
            case "H2" -> H2;
            case "MariaDB", "MySQL" -> MARIADB;
            default -> throw new IllegalStateException("the projection tables are supported on PostgreSQL, H2, "
                    + "MariaDB and MySQL; the projection datasource is " + databaseProductName);
        };
    }

    /** The dialect of {@code connection}'s database (the drivers answer from memory, without a round trip). */
    public static Dialect of(Connection connection) throws SQLException {
        return of(connection.getMetaData().getDatabaseProductName());
    }

    /**
     * Keeps the first {@code n} rows; it follows {@code ORDER BY} and precedes a locking clause. {@code FETCH FIRST}
     * is standard SQL, but MySQL 8 only knows {@code LIMIT}.
     */
    public String firstRows(int n) {
        return this == MARIADB ? " LIMIT " + n : " FETCH FIRST " + n + " ROWS ONLY";
    }

    /**
     * An instant as a bind value. PostgreSQL and H2 store {@code TIMESTAMP WITH TIME ZONE} and take an offset date
     * time; MariaDB's {@code DATETIME(6)} has no zone and holds UTC, so it gets the UTC wall-clock time — an offset
     * date time would be shifted into whatever zone the driver is configured for (docs/pitfalls.md #49).
     */
    public Object timestamp(Instant instant) {
        if (instant == null) {
            return null;
        }
        return this == MARIADB ? LocalDateTime.ofInstant(instant, ZoneOffset.UTC) : instant.atOffset(ZoneOffset.UTC);
    }

    /** Column {@code column} of the current row as an instant, {@code null} for SQL NULL. */
    public Instant instant(ResultSet rows, int column) throws SQLException {
        if (this == MARIADB) {
            LocalDateTime value = rows.getObject(column, LocalDateTime.class);
            return value == null ? null : value.toInstant(ZoneOffset.UTC);
        }
        OffsetDateTime value = rows.getObject(column, OffsetDateTime.class);
        return value == null ? null : value.toInstant();
    }

    /** The database's clock, in UTC. */
    String currentTimeQuery() {
        return this == MARIADB ? "SELECT UTC_TIMESTAMP(6)" : "SELECT CURRENT_TIMESTAMP";
    }

    /**
     * Whether {@code SELECT … ORDER BY … FOR UPDATE SKIP LOCKED} under a row limit locks only the rows it returns.
     * H2 2.2 locks every row it scans (docs/pitfalls.md #23), so there candidates are read without a lock and locked
     * one by one. MariaDB locks only what it returns at READ COMMITTED when the order comes from an index.
     */
    boolean locksOnlyReturnedRows() {
        return this != H2;
    }

    /**
     * {@code table} in a FROM clause, to be read by {@code index}, whose order is the query's and whose leading columns
     * its conditions bound. MariaDB and MySQL are told so ({@code FORCE INDEX}): otherwise, for a keyset page, they
     * read the index from the start of its equality prefix, and the cursor filters instead of bounding the range
     * (docs/pitfalls.md #57). PostgreSQL and H2 find the range by themselves.
     */
    public String tableReadBy(String table, String index) {
        return this == MARIADB ? table + " FORCE INDEX (" + index + ")" : table;
    }

    /**
     * The keyset condition of a page: the row's sort key ({@code columns}, in index order) comes after the cursor's
     * ({@code after}) or before it. Bind it with {@link #keysetValues}, which gives one value per {@code ?}.
     * PostgreSQL reads a row-value comparison {@code (a, b, c) > (?, ?, ?)} as one index range starting at the cursor;
     * MariaDB's range optimizer (and, by its manual, MySQL's) does not use it at all, so a page would read every row
     * from the start of the equality prefix up to its cursor (docs/pitfalls.md #57). There it is spelled out,
     * {@code a > ? OR a = ? AND (b > ? OR b = ? AND c > ?)}, which becomes ranges that start at the cursor — on the
     * index the query is {@link #tableReadBy read by}.
     */
    public String keysetCondition(List<String> columns, boolean after) {
        String op = after ? " > ?" : " < ?";
        if (this != MARIADB) {
            return "(" + String.join(", ", columns) + ")" + (after ? " > (" : " < (")
                    + String.join(", ", Collections.nCopies(columns.size(), "?")) + ")";
        }
        String condition = columns.get(columns.size() - 1) + op;
        for (int i = columns.size() - 2; i >= 0; i--) {
            String rest = condition.contains(" OR ") ? "(" + condition + ")" : condition;
            condition = columns.get(i) + op + " OR " + columns.get(i) + " = ? AND " + rest;
        }
        return "(" + condition + ")";
    }

    /** The bind values of {@link #keysetCondition} for a cursor whose sort key is {@code cursor}, in order. */
    public List<Object> keysetValues(List<Object> cursor) {
        if (this != MARIADB) {
            return cursor;
        }
        List<Object> values = new ArrayList<>();
        for (int i = 0; i < cursor.size() - 1; i++) {
            values.add(cursor.get(i)); // a > ?
            values.add(cursor.get(i)); // a = ?
        }
        values.add(cursor.get(cursor.size() - 1));
        return values;
    }

    /** Whether {@code e} (or a cause) says a unique key was violated: 23505 in the standard, error 1062 on MariaDB. */
    public boolean isDuplicateKey(SQLException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException sql && ("23505".equals(sql.getSQLState())
                    || this == MARIADB && sql.getErrorCode() == 1062)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Prepares a transaction of the engine on {@code connection}, before its first statement. On MariaDB and MySQL
     * the transaction runs at READ COMMITTED, the level the protocol is reasoned at (docs/design.md D28), whatever
     * the datasource's level: {@code SET TRANSACTION} without {@code SESSION} applies to the next transaction only,
     * so the pooled connection goes back to the application at its own level with nothing to restore. Elsewhere
     * nothing is needed: PostgreSQL and H2 default to READ COMMITTED.
     *
     * @throws IllegalStateException when a transaction already runs on {@code connection} (its level can no longer
     *                               change) at another level than READ COMMITTED
     */
    public void beginEngineTransaction(Connection connection) throws SQLException {
        if (this != MARIADB) {
            return;
        }
        try (Statement statement = connection.createStatement()) {
            statement.execute("SET TRANSACTION ISOLATION LEVEL READ COMMITTED");
        } catch (SQLException e) {
            // 1568: a transaction is in progress (for one, an XA transaction the server started on enlistment)
            if (e.getErrorCode() != 1568 || connection.getTransactionIsolation() != Connection.TRANSACTION_READ_COMMITTED) {
                throw new IllegalStateException("the engine's transactions on MariaDB/MySQL must run at READ COMMITTED "
                        + "and this one had begun already at another level: set transaction-isolation to "
                        + "TRANSACTION_READ_COMMITTED on the projection datasource (docs/design.md D28)", e);
            }
        }
    }
}
