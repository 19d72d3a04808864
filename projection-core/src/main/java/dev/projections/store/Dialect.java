package dev.projections.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
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
import java.util.Locale;
import java.util.function.Function;

/**
 * What differs between the databases the product's tables live on: the one place a difference is expressed
 * (docs/design.md D39). Each database is one constant whose body is its implementation; no other class asks which
 * database it is on or switches over it. A table asks its dialect for a fragment (row limit, timestamps, keysets,
 * error codes, isolation, how the catalogue names schemas), and where a whole statement differs it writes the
 * versions side by side and lets the dialect {@link #pick} its own. The pending queue, whose claim and ack differ in
 * most statements, is the dialect's {@link #queue} subclass.
 * MariaDB and MySQL 8 are one dialect: the product uses nothing that differs between them but the name of a
 * collation, which the changelog chooses (docs/design.md D28).
 */
public enum Dialect {

    POSTGRESQL {
        @Override
        public <T> T pick(T postgres, T h2, T mariadb) {
            return postgres;
        }

        @Override
        public void commitTransaction(Connection connection, String synchronousCommit) throws SQLException {
            try (PreparedStatement set = connection.prepareStatement("SELECT set_config('synchronous_commit', ?, true)")) {
                set.setString(1, synchronousCommit);
                set.executeQuery().close();
            }
        }
    },

    H2 {
        @Override
        public <T> T pick(T postgres, T h2, T mariadb) {
            return h2;
        }

        /** H2 2.2 locks every row it scans (docs/pitfalls.md #23). */
        @Override
        boolean locksOnlyReturnedRows() {
            return false;
        }

        /** H2 keeps unquoted names in upper case. */
        @Override
        public String storedName(String name) {
            return name.toUpperCase(Locale.ROOT);
        }
    },

    MARIADB {
        @Override
        public <T> T pick(T postgres, T h2, T mariadb) {
            return mariadb;
        }

        /** MySQL 8 only knows {@code LIMIT}. */
        @Override
        public String firstRows(int n) {
            return " LIMIT " + n;
        }

        /** {@code DATETIME(6)} has no zone and holds UTC: the UTC wall-clock time (docs/pitfalls.md #49). */
        @Override
        public Object timestamp(Instant instant) {
            return instant == null ? null : LocalDateTime.ofInstant(instant, ZoneOffset.UTC);
        }

        @Override
        public Instant instant(ResultSet rows, int column) throws SQLException {
            LocalDateTime value = rows.getObject(column, LocalDateTime.class);
            return value == null ? null : value.toInstant(ZoneOffset.UTC);
        }

        @Override
        String currentTimeQuery() {
            return "SELECT UTC_TIMESTAMP(6)";
        }

        /** Told which index to read, or a keyset page reads from the start of its prefix (docs/pitfalls.md #57). */
        @Override
        public String tableReadBy(String table, String index) {
            return table + " FORCE INDEX (" + index + ")";
        }

        /** The row-value comparison spelled out, as ranges that start at the cursor (docs/pitfalls.md #57). */
        @Override
        public String keysetCondition(List<String> columns, boolean after) {
            String op = after ? " > ?" : " < ?";
            String condition = columns.get(columns.size() - 1) + op;
            for (int i = columns.size() - 2; i >= 0; i--) {
                String rest = condition.contains(" OR ") ? "(" + condition + ")" : condition;
                condition = columns.get(i) + op + " OR " + columns.get(i) + " = ? AND " + rest;
            }
            return "(" + condition + ")";
        }

        @Override
        public List<Object> keysetValues(List<Object> cursor) {
            List<Object> values = new ArrayList<>();
            for (int i = 0; i < cursor.size() - 1; i++) {
                values.add(cursor.get(i)); // a > ?
                values.add(cursor.get(i)); // a = ?
            }
            values.add(cursor.get(cursor.size() - 1));
            return values;
        }

        @Override
        boolean isVendorDuplicateKey(SQLException e) {
            return e.getErrorCode() == 1062;
        }

        @Override
        public void beginEngineTransaction(Connection connection) throws SQLException {
            try (Statement statement = connection.createStatement()) {
                statement.execute("SET TRANSACTION ISOLATION LEVEL READ COMMITTED");
            } catch (SQLException e) {
                // 1568: a transaction is in progress (for one, an XA transaction the server started on enlistment)
                if (e.getErrorCode() != 1568
                        || connection.getTransactionIsolation() != Connection.TRANSACTION_READ_COMMITTED) {
                    throw new IllegalStateException("the engine's transactions on MariaDB/MySQL must run at READ "
                            + "COMMITTED and this one had begun already at another level: set transaction-isolation "
                            + "to TRANSACTION_READ_COMMITTED on the projection datasource (docs/design.md D28)", e);
                }
            }
        }

        @Override
        public boolean collationsMayFoldKeys() {
            return true;
        }

        /** MariaDB's driver calls its databases catalogs and has no schemas. */
        @Override
        public boolean schemasAreCatalogs() {
            return true;
        }

        @Override
        String lockingRead(Connection connection, String sql) throws SQLException {
            return SnapshotChecks.statement(connection, sql);
        }

        @Override
        Connection outsideSnapshotChecks(Connection connection) throws SQLException {
            return SnapshotChecks.withoutChecks(connection);
        }
    };

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

    /** Of a statement (or anything) written once per database side by side, this database's. */
    public abstract <T> T pick(T postgres, T h2, T mariadb);

    /** {@code projection_pending} on this database, for the server {@code holder} ({@code null} outside one). */
    PendingQueue queue(String holder) {
        return this.<Function<String, PendingQueue>>pick(PostgresPendingQueue::new,
                H2PendingQueue::new, MariaDbPendingQueue::new).apply(holder);
    }

    /**
     * Keeps the first {@code n} rows; it follows {@code ORDER BY} and precedes a locking clause. {@code FETCH FIRST}
     * is standard SQL.
     */
    public String firstRows(int n) {
        return " FETCH FIRST " + n + " ROWS ONLY";
    }

    /**
     * An instant as a bind value. PostgreSQL and H2 store {@code TIMESTAMP WITH TIME ZONE} and take an offset date
     * time.
     */
    public Object timestamp(Instant instant) {
        return instant == null ? null : instant.atOffset(ZoneOffset.UTC);
    }

    /** Column {@code column} of the current row as an instant, {@code null} for SQL NULL. */
    public Instant instant(ResultSet rows, int column) throws SQLException {
        OffsetDateTime value = rows.getObject(column, OffsetDateTime.class);
        return value == null ? null : value.toInstant();
    }

    /** The database's clock, in UTC. */
    String currentTimeQuery() {
        return "SELECT CURRENT_TIMESTAMP";
    }

    /**
     * Whether {@code SELECT … ORDER BY … FOR UPDATE SKIP LOCKED} under a row limit locks only the rows it returns;
     * where not, candidates are read without a lock and locked one by one. MariaDB locks only what it returns at
     * READ COMMITTED when it reads the primary key; through a secondary index it also keeps the rows its WHERE
     * rejected locked, so its claims lock by primary key (docs/pitfalls.md #94).
     */
    boolean locksOnlyReturnedRows() {
        return true;
    }

    /**
     * {@code table} in a FROM clause, to be read by {@code index}, whose order is the query's and whose leading columns
     * its conditions bound. PostgreSQL and H2 find the range by themselves.
     */
    public String tableReadBy(String table, String index) {
        return table;
    }

    /**
     * The keyset condition of a page: the row's sort key ({@code columns}, in index order) comes after the cursor's
     * ({@code after}) or before it. Bind it with {@link #keysetValues}, which gives one value per {@code ?}.
     * PostgreSQL reads a row-value comparison {@code (a, b, c) > (?, ?, ?)} as one index range starting at the cursor;
     * MariaDB's range optimizer (and, by its manual, MySQL's) does not use it at all, so there it is spelled out,
     * {@code a > ? OR a = ? AND (b > ? OR b = ? AND c > ?)}, on the index the query is {@link #tableReadBy read by}.
     */
    public String keysetCondition(List<String> columns, boolean after) {
        return "(" + String.join(", ", columns) + ")" + (after ? " > (" : " < (")
                + String.join(", ", Collections.nCopies(columns.size(), "?")) + ")";
    }

    /** The bind values of {@link #keysetCondition} for a cursor whose sort key is {@code cursor}, in order. */
    public List<Object> keysetValues(List<Object> cursor) {
        return cursor;
    }

    /** Whether {@code e} (or a cause) says a unique key was violated: 23505 in the standard, error 1062 on MariaDB. */
    public boolean isDuplicateKey(SQLException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException sql && ("23505".equals(sql.getSQLState()) || isVendorDuplicateKey(sql))) {
                return true;
            }
        }
        return false;
    }

    /** A unique-key violation by the database's own error code, where its SQL state is not the standard's. */
    boolean isVendorDuplicateKey(SQLException e) {
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
    }

    /** Whether the JDBC catalogue calls a schema a catalog (MariaDB, MySQL: a database), rather than a schema. */
    public boolean schemasAreCatalogs() {
        return false;
    }

    /**
     * Whether a text column's collation can make distinct ids compare equal (MariaDB and MySQL default to case- and
     * pad-insensitive ones, docs/pitfalls.md #50), so the schema check looks at the key columns' collations.
     */
    public boolean collationsMayFoldKeys() {
        return false;
    }

    /** An unquoted name as the database's catalogue stores it. */
    public String storedName(String name) {
        return name;
    }

    /**
     * Whether a lone handed key may be claimed, refreshed and acked in one transaction (docs/design.md D53): on
     * PostgreSQL and MariaDB. Not on H2, the demo's embedded database: a business commit that marks the key meanwhile
     * waits for its row, and H2 fails such a wait after its lock timeout.
     */
    public boolean refreshesInTheClaimTransaction() {
        return pick(true, false, true);
    }

    /**
     * Whether it does so when {@code projection.one-transaction} is unset: on PostgreSQL, where the refresh's lock
     * waits are bounded well under the deadlock timeout, so a lock cycle with a business transaction always ends
     * with the refresh giving way (docs/pitfalls.md #96). Not on MariaDB, whose deadlock detection picks the victim
     * by weight at once, which may be the business transaction: there a team turns it on for projections whose
     * refresh takes no lock a business transaction may hold.
     */
    public boolean refreshesInTheClaimTransactionByDefault() {
        return pick(true, false, false);
    }

    /**
     * Whether the transaction on {@code connection} can be told how to commit, {@link #commitTransaction}: on PostgreSQL,
     * whose {@code synchronous_commit} a transaction may set for itself. MariaDB's counterpart is the server's alone.
     */
    public boolean commitsAsTold() {
        return pick(true, false, false);
    }

    /**
     * Sets PostgreSQL's {@code synchronous_commit} to {@code synchronousCommit} for the rest of the transaction on
     * {@code connection} (docs/design.md D63): it is read when the transaction commits.
     *
     * @throws UnsupportedOperationException where {@link #commitsAsTold} is false
     */
    public void commitTransaction(Connection connection, String synchronousCommit) throws SQLException {
        throw new UnsupportedOperationException(this + " has no synchronous_commit of a transaction's own");
    }

    /** Whether indexes may have a WHERE clause (a partial index); where not, the changelog leaves them out. */
    public boolean partialIndexes() {
        return pick(true, false, false);
    }

    /**
     * {@code sql}, a statement that reads (a subquery) before it locks: on MariaDB without the snapshot check, which
     * would fail it when a row it locks changed after the statement began ({@link SnapshotChecks}).
     */
    String lockingRead(Connection connection, String sql) throws SQLException {
        return sql;
    }

    /** {@code connection}, every statement of it without MariaDB's snapshot check ({@link SnapshotChecks}). */
    Connection outsideSnapshotChecks(Connection connection) throws SQLException {
        return connection;
    }
}
