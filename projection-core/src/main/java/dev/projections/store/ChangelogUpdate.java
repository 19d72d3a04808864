package dev.projections.store;

import java.sql.Connection;
import java.util.HashMap;
import java.util.Map;
import liquibase.Scope;
import liquibase.UpdateSummaryOutputEnum;
import liquibase.command.CommandScope;
import liquibase.command.core.UpdateCommandStep;
import liquibase.command.core.UpdateCountCommandStep;
import liquibase.command.core.helpers.DbUrlConnectionArgumentsCommandStep;
import liquibase.command.core.helpers.ShowSummaryArgument;
import liquibase.database.Database;
import liquibase.database.DatabaseFactory;
import liquibase.database.jvm.JdbcConnection;
import liquibase.resource.ClassLoaderResourceAccessor;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;

/**
 * Runs the product's changelog through Liquibase's command API (its {@code Liquibase} class's update methods are
 * deprecated), as the deployment does with {@code projection.schema=update} and as the tests create their tables.
 * <p>
 * With a {@link TableSchema} set, Liquibase creates the tables there ({@code defaultSchemaName}) and keeps its own
 * changelog and lock tables there too ({@code liquibaseSchemaName}); on MariaDB and MySQL, where a schema is a
 * database, both as catalogs. The change sets' raw SQL names tables unqualified, so it runs on the qualifying
 * connection ({@link TableSchema#connection}) rather than after a {@code SET search_path} or {@code USE}, which would
 * stay on the pooled connection after the migration.
 */
public final class ChangelogUpdate {

    /** The changelog of module {@code liquibase}, read through the class loader that sees that jar. */
    public static final String CHANGELOG = "dev/projections/liquibase/changelog.xml";

    private final TableSchema tables;
    private final String changelogTable;
    private final String lockTable;

    public ChangelogUpdate(TableSchema tables, String changelogTable, String lockTable) {
        this.tables = tables;
        this.changelogTable = changelogTable;
        this.lockTable = lockTable;
    }

    /**
     * Applies every change set not yet applied ({@code count == null}), or the next {@code count}, on
     * {@code connection}; the caller closes it. Returns the database's product name.
     */
    public String update(Connection connection, ClassLoader changelogLoader, Integer count,
                         Map<String, Object> scopeValues) throws Exception {
        Database database = DatabaseFactory.getInstance()
                .findCorrectDatabaseImplementation(new JdbcConnection(tables.migrationConnection(connection)));
        if (!tables.isDefault()) {
            Dialect dialect = Dialect.of(connection);
            if (dialect.schemasAreCatalogs()) {
                database.setDefaultCatalogName(tables.schema());
                database.setLiquibaseCatalogName(tables.schema());
            } else {
                String schema = dialect.storedName(tables.schema());
                database.setDefaultSchemaName(schema);
                database.setLiquibaseSchemaName(schema);
            }
        }
        database.setDatabaseChangeLogTableName(changelogTable);
        database.setDatabaseChangeLogLockTableName(lockTable);
        Map<String, Object> scope = new HashMap<>(scopeValues);
        scope.putIfAbsent(Scope.Attr.resourceAccessor.name(), new ClassLoaderResourceAccessor(changelogLoader));
        // Liquibase switches auto-commit off on the connection it is given; the pooled connection goes back as it came
        boolean autoCommit = connection.getAutoCommit();
        try {
            Scope.child(scope, () -> {
                CommandScope command = count == null ? new CommandScope(UpdateCommandStep.COMMAND_NAME)
                        : new CommandScope(UpdateCountCommandStep.COMMAND_NAME)
                                .addArgumentValue(UpdateCountCommandStep.COUNT_ARG, count);
                command.addArgumentValue(DbUrlConnectionArgumentsCommandStep.DATABASE_ARG, database)
                        .addArgumentValue(UpdateCommandStep.CHANGELOG_FILE_ARG, CHANGELOG)
                        .addArgumentValue(ShowSummaryArgument.SHOW_SUMMARY_OUTPUT, UpdateSummaryOutputEnum.LOG)
                        .execute();
            });
        } finally {
            if (connection.getAutoCommit() != autoCommit) {
                connection.setAutoCommit(autoCommit);
            }
        }
        return database.getDatabaseProductName();
    }

    /**
     * Fails, naming {@code key}, unless the configured schema exists: Liquibase would otherwise fail on its first
     * statement, with a message about a table. Nothing to check without a schema.
     */
    public static void requireSchema(Connection connection, TableSchema tables, String key) throws SQLException {
        if (tables.isDefault()) {
            return;
        }
        DatabaseMetaData metadata = connection.getMetaData();
        boolean mariadb = Dialect.of(connection).schemasAreCatalogs();
        boolean exists = false;
        try (ResultSet rows = mariadb ? metadata.getCatalogs() : metadata.getSchemas()) {
            while (rows.next() && !exists) {
                exists = tables.schema().equalsIgnoreCase(rows.getString(1));
            }
        }
        if (exists) {
            return;
        }
        throw new IllegalStateException(key + "=" + tables.schema() + ": the database has no "
                + (mariadb ? "database" : "schema") + " " + tables.schema() + " (create it first: "
                + (mariadb ? "CREATE DATABASE " : "CREATE SCHEMA ") + tables.schema()
                + ", and grant the projection datasource's user the right to create tables in it)");
    }

    /**
     * A warning, when the schema set holds no queue yet while the connection's default schema does: either the
     * setting was added to an installation that has run — migrating then creates empty tables and leaves every
     * pending, failing and parked mark, pause and rebuild run behind, read by nothing — or another application keeps
     * its own engine's tables there, which the database cannot tell apart. So the deployment goes on, saying so.
     */
    public static Optional<String> tablesLeftBehind(Connection connection, TableSchema tables, String key)
            throws SQLException {
        if (tables.isDefault()) {
            return Optional.empty();
        }
        boolean mariadb = Dialect.of(connection).schemasAreCatalogs();
        String current = mariadb ? connection.getCatalog() : connection.getSchema();
        if (current == null || current.equalsIgnoreCase(tables.schema()) || hasQueue(connection, tables.schema(), mariadb)
                || !hasQueue(connection, current, mariadb)) {
            return Optional.empty();
        }
        String move = mariadb ? "RENAME TABLE " + current + ".projection_pending TO " + tables.schema()
                + ".projection_pending, …" : "ALTER TABLE " + current + ".projection_pending SET SCHEMA " + tables.schema()
                + "; …";
        return Optional.of(key + "=" + tables.schema() + " holds no product tables yet, but " + current
                + " does: if they are this application's (the setting was added to an installation that has run), "
                + "the marks, pauses and rebuild runs in " + current + " are left unread — undeploy, move the "
                + "product's tables and Liquibase's changelog tables (" + move + ") and deploy again; if they are "
                + "another application's, nothing is wrong");
    }

    private static boolean hasQueue(Connection connection, String schema, boolean mariadb) throws SQLException {
        DatabaseMetaData metadata = connection.getMetaData();
        for (String name : new String[] {"projection_pending", "PROJECTION_PENDING"}) {
            try (ResultSet rows = mariadb ? metadata.getTables(schema, null, name, null)
                    : metadata.getTables(null, schema, name, null)) {
                if (rows.next()) {
                    return true;
                }
            }
        }
        return false;
    }
}
