package dev.projections.store;

import java.io.PrintWriter;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Logger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * The schema of the product's tables ({@code projection.table-schema}, docs/design.md D34). Unset, the product's SQL
 * names its tables unqualified and runs on the connection's default schema, and {@link #connection} and
 * {@link #dataSource} return what they are given: no cost at all. Set, every statement prepared or run through the
 * returned connection names the product's tables as {@code schema.table}: the engine's, the console's, the marks
 * written on a persistence unit's connection at commit, and Liquibase's change sets. One rewrite, at the connection,
 * rather than a schema threaded through some 200 statements in 30 classes, and no session state (no
 * {@code search_path}, no {@code USE}) on a pooled connection the application shares.
 * <p>
 * The rewrite qualifies the ten table names where they stand as whole words outside quoted text, not already
 * qualified; index names ({@code projection_pending_due_idx} in MariaDB's {@code FORCE INDEX}) are longer words and
 * stay as they are, {@code tableoid}s are numbers. PostgreSQL resolves an unqualified {@code DROP INDEX name} through
 * the search path, so the changelog's {@code DROP INDEX} of one of ours is qualified too (MariaDB's form,
 * {@code DROP INDEX name ON table}, qualifies its table).
 */
public final class TableSchema {

    /** The product's tables. */
    public static final List<String> TABLES = List.of("projection_pending", "projection_control",
            "projection_rebuild_partition", "projection_rebuild", "projection_instance", "projection_node",
            "projection_trend", "projection_audit", "projection_drift_sample", "projection_drift");

    /** The connection's default schema: statements as they are written. */
    public static final TableSchema DEFAULT = new TableSchema(null);

    private static final Pattern TABLE = Pattern.compile(
            "(?<![\\w.$])(" + String.join("|", TABLES) + ")(?![\\w$])");
    private static final Pattern DROP_INDEX = Pattern.compile(
            "(?i)(\\bDROP\\s+INDEX\\s+(?:IF\\s+EXISTS\\s+)?)(projection_[a-z0-9_]+)(?![\\w$.])(?!\\s+ON\\b)");
    /** Statements are constants or shaped by few parameters; a bound keeps a generated one from growing the cache. */
    private static final int CACHE_LIMIT = 4096;
    /**
     * Longer statements are rewritten each time instead: MariaDB's multi-row upsert grows with its row count (up to a
     * thousand rows), and a cache of those would hold megabytes for a rewrite that costs one pass over the text.
     */
    private static final int CACHED_LENGTH = 2048;

    private final String schema;
    private final Map<String, String> rewritten = new ConcurrentHashMap<>();

    private TableSchema(String schema) {
        this.schema = schema;
    }

    /** The tables in {@code schema}, or in the connection's default schema when it is {@code null}. */
    public static TableSchema of(String schema) {
        return schema == null ? DEFAULT : new TableSchema(schema);
    }

    /** The configured schema, or {@code null} for the connection's default. */
    public String schema() {
        return schema;
    }

    public boolean isDefault() {
        return schema == null;
    }

    /** {@code sql} with the product's tables named in this schema. */
    public String qualify(String sql) {
        if (schema == null || sql == null) {
            return sql;
        }
        if (sql.length() > CACHED_LENGTH) {
            return rewrite(sql);
        }
        String known = rewritten.get(sql);
        if (known == null) {
            known = rewrite(sql);
            if (rewritten.size() >= CACHE_LIMIT) {
                rewritten.clear();
            }
            rewritten.put(sql, known);
        }
        return known;
    }

    private String rewrite(String sql) {
        StringBuilder out = new StringBuilder(sql.length() + 64);
        int plain = 0;
        int i = 0;
        while (i < sql.length()) {
            char c = sql.charAt(i);
            if (c == '-' && sql.startsWith("--", i) || c == '/' && sql.startsWith("/*", i)) {
                // a comment, copied as it is: an apostrophe in it starts no quoted text
                out.append(rewritePlain(sql.substring(plain, i)));
                int end = c == '-' ? sql.indexOf('\n', i) : sql.indexOf("*/", i + 2);
                end = end < 0 ? sql.length() : c == '-' ? end : end + 2;
                out.append(sql, i, end);
                plain = end;
                i = end;
            } else if (c == '\'' || c == '"' || c == '`') {
                out.append(rewritePlain(sql.substring(plain, i)));
                int end = i + 1;
                while (end < sql.length()) {
                    if (sql.charAt(end) == c) {
                        if (end + 1 < sql.length() && sql.charAt(end + 1) == c) {
                            end += 2; // a doubled quote inside the quoted text
                            continue;
                        }
                        break;
                    }
                    end++;
                }
                end = Math.min(end + 1, sql.length());
                out.append(sql, i, end);
                plain = end;
                i = end;
            } else {
                i++;
            }
        }
        out.append(rewritePlain(sql.substring(plain)));
        return out.toString();
    }

    private String rewritePlain(String part) {
        String tables = TABLE.matcher(part).replaceAll(schema + ".$1");
        Matcher dropIndex = DROP_INDEX.matcher(tables);
        return dropIndex.replaceAll("$1" + Matcher.quoteReplacement(schema) + ".$2");
    }

    /** {@code connection}, or one that names the product's tables in this schema in all it prepares and runs. */
    public Connection connection(Connection connection) {
        if (schema == null || connection == null || Proxy.isProxyClass(connection.getClass())
                && Proxy.getInvocationHandler(connection) instanceof Qualifying q && q.tables == this) {
            return connection;
        }
        return SqlRewriting.proxy(connection, new Qualifying(this, connection, connection, false));
    }

    /**
     * {@link #connection}, for Liquibase: with a schema set, Liquibase switches the session to it ({@code SET
     * SEARCH_PATH TO …} on PostgreSQL, {@code USE …} on MariaDB), which would stay on the pooled connection and send the
     * application's unqualified statements to our schema afterwards. Here those switches, and JDBC's
     * {@code setSchema}/{@code setCatalog}, do nothing: every statement names the schema already.
     */
    Connection migrationConnection(Connection connection) {
        if (schema == null) {
            return connection;
        }
        return SqlRewriting.proxy(connection, new Qualifying(this, connection, connection, true));
    }

    private static final Pattern SESSION_SWITCH =
            Pattern.compile("(?is)\\s*(SET\\s+SEARCH_PATH\\b|SET\\s+SCHEMA\\b|USE\\s).*");

    /** {@code dataSource}, or one whose connections go through {@link #connection}. */
    public DataSource dataSource(DataSource dataSource) {
        return schema == null ? dataSource : new QualifyingDataSource(this, dataSource);
    }

    @Override
    public String toString() {
        return schema == null ? "the connection's default schema" : "schema " + schema;
    }

    /** Qualifies the SQL of every statement made through a connection, and of those run by its plain statements. */
    private static final class Qualifying extends SqlRewriting {

        private final TableSchema tables;
        private final boolean migration;

        Qualifying(TableSchema tables, Object target, Connection connection, boolean migration) {
            super(target, connection);
            this.tables = tables;
            this.migration = migration;
        }

        @Override
        boolean takesSql(String name) {
            return super.takesSql(name) || name.equals("nativeSQL");
        }

        @Override
        Object instead(Object proxy, String name, Object[] args) {
            if (name.equals("equals") && args != null && args.length == 1) {
                return proxy == args[0];
            }
            if (name.equals("hashCode") && (args == null || args.length == 0)) {
                return System.identityHashCode(proxy);
            }
            if (migration && onConnection() && (name.equals("setSchema") || name.equals("setCatalog"))) {
                return null;
            }
            return PROCEED;
        }

        @Override
        String rewrite(String sql) {
            return migration && SESSION_SWITCH.matcher(sql).matches() ? "SELECT 1" : tables.qualify(sql);
        }

        @Override
        SqlRewriting forStatement(Statement statement) {
            return new Qualifying(tables, statement, connection(), migration);
        }
    }

    private static final class QualifyingDataSource implements DataSource {

        private final TableSchema tables;
        private final DataSource target;

        QualifyingDataSource(TableSchema tables, DataSource target) {
            this.tables = tables;
            this.target = target;
        }

        @Override
        public Connection getConnection() throws SQLException {
            return tables.connection(target.getConnection());
        }

        @Override
        public Connection getConnection(String username, String password) throws SQLException {
            return tables.connection(target.getConnection(username, password));
        }

        @Override
        public PrintWriter getLogWriter() throws SQLException {
            return target.getLogWriter();
        }

        @Override
        public void setLogWriter(PrintWriter out) throws SQLException {
            target.setLogWriter(out);
        }

        @Override
        public void setLoginTimeout(int seconds) throws SQLException {
            target.setLoginTimeout(seconds);
        }

        @Override
        public int getLoginTimeout() throws SQLException {
            return target.getLoginTimeout();
        }

        @Override
        public Logger getParentLogger() throws SQLFeatureNotSupportedException {
            return target.getParentLogger();
        }

        @Override
        public <T> T unwrap(Class<T> type) throws SQLException {
            return type.isInstance(target) ? type.cast(target) : target.unwrap(type);
        }

        @Override
        public boolean isWrapperFor(Class<?> type) throws SQLException {
            return type.isInstance(target) || target.isWrapperFor(type);
        }
    }
}
