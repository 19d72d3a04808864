package dev.projections.store;

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

/** Creates the product's tables the way a deployment does: by running the real changelog of module liquibase. */
public final class LiquibaseSchema {

    static final String CHANGELOG = "dev/projections/liquibase/changelog.xml";

    /* kept referenced, so the level holds: Liquibase logs every change set at INFO */
    private static final Logger LIQUIBASE_LOG = Logger.getLogger("liquibase");

    private LiquibaseSchema() {
    }

    /** Runs the changelog on {@code connection}'s current schema, then closes the connection. */
    public static void update(Connection connection) throws Exception {
        System.setProperty("liquibase.analytics.enabled", "false");
        System.setProperty("liquibase.showBanner", "false");
        LIQUIBASE_LOG.setLevel(Level.WARNING);
        Database database = DatabaseFactory.getInstance()
                .findCorrectDatabaseImplementation(new JdbcConnection(connection));
        try {
            // console output (banner, summary) goes to the log, which is quiet below WARNING
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
