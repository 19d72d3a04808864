package dev.projections.bench.db;

import java.sql.Connection;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;
import liquibase.Scope;
import liquibase.UpdateSummaryOutputEnum;
import liquibase.command.CommandScope;
import liquibase.command.core.UpdateCommandStep;
import liquibase.command.core.helpers.DbUrlConnectionArgumentsCommandStep;
import liquibase.command.core.helpers.ShowSummaryArgument;
import liquibase.database.Database;
import liquibase.database.DatabaseFactory;
import liquibase.database.jvm.JdbcConnection;
import liquibase.resource.ClassLoaderResourceAccessor;
import liquibase.ui.LoggerUIService;

/**
 * The product's tables made by the real changelog of module liquibase, as a deployment makes them: a benchmark on
 * hand-written DDL could miss an index the product relies on, or measure one it does not have.
 */
final class ProductSchema {

    private static final String CHANGELOG = "dev/projections/liquibase/changelog.xml";

    /* held, so the level sticks: Liquibase reports every change set at INFO */
    private static final Logger LIQUIBASE_LOG = Logger.getLogger("liquibase");

    private ProductSchema() {
    }

    /** Runs the changelog on the connection's current schema and closes the connection. */
    static void apply(Connection connection) throws Exception {
        System.setProperty("liquibase.analytics.enabled", "false");
        System.setProperty("liquibase.showBanner", "false");
        LIQUIBASE_LOG.setLevel(Level.WARNING);
        Database database = DatabaseFactory.getInstance().findCorrectDatabaseImplementation(new JdbcConnection(connection));
        try {
            Map<String, Object> scope = Map.of(
                    Scope.Attr.resourceAccessor.name(), new ClassLoaderResourceAccessor(),
                    Scope.Attr.ui.name(), new LoggerUIService());
            Scope.child(scope, () -> new CommandScope(UpdateCommandStep.COMMAND_NAME)
                    .addArgumentValue(DbUrlConnectionArgumentsCommandStep.DATABASE_ARG, database)
                    .addArgumentValue(UpdateCommandStep.CHANGELOG_FILE_ARG, CHANGELOG)
                    .addArgumentValue(ShowSummaryArgument.SHOW_SUMMARY_OUTPUT, UpdateSummaryOutputEnum.LOG)
                    .execute());
        } finally {
            database.close();
        }
    }
}
