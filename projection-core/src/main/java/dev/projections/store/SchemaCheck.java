package dev.projections.store;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.sql.PreparedStatement;

/**
 * {@code projection.schema=validate}: checks through JDBC metadata, without writing, that every table, column
 * and index of the product's schema exists. The expected schema is the DDL the build generated from the
 * Liquibase changelog for the database ({@value #DDL}, {@value #MARIADB_DDL}, {@value #MYSQL_DDL}), so there is one source of
 * truth; when something is missing the error carries that DDL for a DBA to apply.
 */
public final class SchemaCheck {

    public static final String DDL = "dev/projections/liquibase/postgresql.sql";
    public static final String MARIADB_DDL = "dev/projections/liquibase/mariadb.sql";
    /** MariaDB's DDL but for the name of the binary no-pad collation, which MySQL 8 calls utf8mb4_0900_bin. */
    public static final String MYSQL_DDL = "dev/projections/liquibase/mysql.sql";

    /* MariaDB's DDL carries table options after the column list */
    private static final Pattern TABLE = Pattern.compile("CREATE TABLE (\\w+) \\((.*)\\)[^)]*;");
    private static final Pattern COLUMN_SEPARATOR = Pattern.compile(",\\s*(?=[a-z_]+ [A-Z])");
    private static final Pattern INDEX = Pattern.compile("CREATE (?:UNIQUE )?INDEX (\\w+) ON (\\w+)");
    private static final Pattern DROPPED_INDEX = Pattern.compile("DROP INDEX (\\w+)");
    private static final Pattern ADDED_COLUMN = Pattern.compile("ALTER TABLE (\\w+) ADD (?!CONSTRAINT )(\\w+) ");

    private final Expected postgres;
    private final Expected mariadb;
    private final Expected mysql;

    SchemaCheck(String postgresDdl, String mariadbDdl, String mysqlDdl) {
        this.postgres = new Expected(postgresDdl);
        this.mariadb = new Expected(mariadbDdl);
        this.mysql = new Expected(mysqlDdl);
    }

    /** The tables, columns and indexes one DDL script creates. */
    private static final class Expected {

        final Map<String, List<String>> columnsByTable = new LinkedHashMap<>();
        final Map<String, String> tableByIndex = new LinkedHashMap<>();
        /** Partial indexes exist only where the database has them (PostgreSQL); elsewhere the changelog skips them. */
        final Set<String> partialIndexes = new TreeSet<>();
        final String ddl;

        Expected(String ddl) {
            this.ddl = ddl;
            for (String line : ddl.split("\n")) {
                Matcher table = TABLE.matcher(line);
                if (table.find()) {
                    List<String> columns = new ArrayList<>();
                    for (String column : COLUMN_SEPARATOR.split(table.group(2))) {
                        columns.add(column.trim().split(" ")[0]);
                    }
                    columnsByTable.put(table.group(1), columns);
                }
                Matcher added = ADDED_COLUMN.matcher(line);
                if (added.find()) {
                    columnsByTable.computeIfAbsent(added.group(1), t -> new ArrayList<>()).add(added.group(2));
                }
                Matcher dropped = DROPPED_INDEX.matcher(line);
                if (dropped.find()) {
                    // replaced by a later change (on PostgreSQL; elsewhere the dropped index may stay, and is not required)
                    tableByIndex.remove(dropped.group(1));
                    partialIndexes.remove(dropped.group(1));
                }
                Matcher index = INDEX.matcher(line);
                if (index.find()) {
                    tableByIndex.put(index.group(1), index.group(2));
                    if (line.contains(" WHERE ")) {
                        partialIndexes.add(index.group(1));
                    }
                }
            }
        }
    }

    /** The check of the DDL shipped with the changelog. */
    public static SchemaCheck ofShippedDdl(ClassLoader loader) {
        return new SchemaCheck(read(loader, DDL), read(loader, MARIADB_DDL), read(loader, MYSQL_DDL));
    }

    private static String read(ClassLoader loader, String resource) {
        try (InputStream in = loader.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException(resource + " is missing: deploy projection-liquibase in the EAR's lib");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + resource, e);
        }
    }

    private Expected expected(Connection connection) throws SQLException {
        return Dialect.of(connection).pick(postgres, postgres,
                "MySQL".equals(connection.getMetaData().getDatabaseProductName()) ? mysql : mariadb);
    }

    /** What is missing, as "table.column" and "index name" entries; empty when the schema is complete. */
    public List<String> missing(Connection connection) throws SQLException {
        return missing(connection, TableSchema.DEFAULT);
    }

    /** What is missing in the schema of {@code tables} ({@code projection.table-schema}). */
    public List<String> missing(Connection connection, TableSchema tables) throws SQLException {
        DatabaseMetaData metadata = connection.getMetaData();
        Dialect dialect = Dialect.of(connection);
        Expected expected = expected(connection);
        // the product's schema only: a table of the same name in another schema proves nothing. MariaDB's driver
        // calls its databases catalogs and has no schemas; H2 keeps unquoted names in upper case.
        String own = tables.schema();
        String catalog = !dialect.schemasAreCatalogs() ? null : own != null ? own : connection.getCatalog();
        String schema = dialect.schemasAreCatalogs() ? null
                : own == null ? connection.getSchema()
                : dialect.storedName(own);
        List<String> missing = new ArrayList<>();
        for (Map.Entry<String, List<String>> table : expected.columnsByTable.entrySet()) {
            Set<String> present = columnsOf(metadata, catalog, schema, table.getKey());
            if (present.isEmpty()) {
                missing.add("table " + table.getKey());
                continue;
            }
            for (String column : table.getValue()) {
                if (!present.contains(column.toLowerCase(Locale.ROOT))) {
                    missing.add("column " + table.getKey() + "." + column);
                }
            }
        }
        if (dialect.collationsMayFoldKeys()) {
            missing.addAll(foldingColumns(connection, catalog, expected.columnsByTable.keySet()));
        }
        boolean partialIndexesSupported = dialect.partialIndexes();
        for (Map.Entry<String, String> index : expected.tableByIndex.entrySet()) {
            if (expected.partialIndexes.contains(index.getKey()) && !partialIndexesSupported) {
                continue;
            }
            if (!indexesOf(metadata, catalog, schema, index.getValue()).contains(index.getKey().toLowerCase(Locale.ROOT))) {
                missing.add("index " + index.getKey());
            }
        }
        return missing;
    }

    /**
     * On MariaDB/MySQL, the text columns of the product's tables whose collation folds case or ignores trailing spaces:
     * with one, ids "abc", "ABC" and "abc " are one key, and a refresh of one would ack another's mark
     * (docs/pitfalls.md #50). A table created from the shipped DDL, or by Liquibase, has a binary no-pad collation.
     */
    private static List<String> foldingColumns(Connection connection, String database, Set<String> tables)
            throws SQLException {
        List<String> folding = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement("""
                SELECT TABLE_NAME, COLUMN_NAME, COLLATION_NAME FROM information_schema.COLUMNS
                 WHERE TABLE_SCHEMA = ? AND COLLATION_NAME IS NOT NULL ORDER BY TABLE_NAME, ORDINAL_POSITION""")) {
            select.setString(1, database);
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    String table = rows.getString(1).toLowerCase(Locale.ROOT);
                    String collation = rows.getString(3).toLowerCase(Locale.ROOT);
                    boolean exact = collation.endsWith("_nopad_bin") || collation.endsWith("_0900_bin")
                            || collation.equals("binary");
                    if (tables.contains(table) && !exact) {
                        folding.add("column " + table + "." + rows.getString(2).toLowerCase(Locale.ROOT) + " in a binary "
                                + "no-pad collation (utf8mb4_nopad_bin; MySQL: utf8mb4_0900_bin), not " + collation);
                    }
                }
            }
        }
        return folding;
    }

    /** Fails, listing what is missing and the DDL to create it, unless the schema is complete. */
    public void require(Connection connection) throws SQLException {
        require(connection, TableSchema.DEFAULT);
    }

    /** As {@link #require(Connection)}, for the tables in the schema of {@code tables}. */
    public void require(Connection connection, TableSchema tables) throws SQLException {
        List<String> missing = missing(connection, tables);
        if (!missing.isEmpty()) {
            throw new IllegalStateException("projection.schema=validate: the database lacks " + String.join(", ", missing)
                    + (tables.isDefault() ? "" : " in " + tables) + ". Apply the product's DDL"
                    + (tables.isDefault() ? "" : " in that schema (e.g. after SET search_path TO " + tables.schema()
                    + " in psql; on MariaDB USE " + tables.schema() + ")")
                    + " (or run with projection.schema=update):\n" + expected(connection).ddl);
        }
    }

    private static Set<String> columnsOf(DatabaseMetaData metadata, String catalog, String schema, String table)
            throws SQLException {
        Set<String> columns = new TreeSet<>();
        for (String name : List.of(table, table.toUpperCase(Locale.ROOT))) {
            try (ResultSet rs = metadata.getColumns(catalog, schema, name, null)) {
                while (rs.next()) {
                    columns.add(rs.getString("COLUMN_NAME").toLowerCase(Locale.ROOT));
                }
            }
        }
        return columns;
    }

    private static Set<String> indexesOf(DatabaseMetaData metadata, String catalog, String schema, String table)
            throws SQLException {
        Set<String> indexes = new TreeSet<>();
        for (String name : List.of(table, table.toUpperCase(Locale.ROOT))) {
            try (ResultSet rs = metadata.getIndexInfo(catalog, schema, name, false, true)) {
                while (rs.next()) {
                    String index = rs.getString("INDEX_NAME");
                    if (index != null) {
                        indexes.add(index.toLowerCase(Locale.ROOT));
                    }
                }
            }
        }
        return indexes;
    }
}
