package dev.projections.store;

import java.sql.Connection;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;
import liquibase.Scope;
import liquibase.ui.LoggerUIService;

/** Creates the product's tables the way a deployment does: by running the real changelog of module liquibase. */
public final class LiquibaseSchema {

    static final String CHANGELOG = "dev/projections/liquibase/changelog.xml";

    /* kept referenced, so the level holds: Liquibase logs every change set at INFO */
    private static final Logger LIQUIBASE_LOG = Logger.getLogger("liquibase");

    private LiquibaseSchema() {
    }

    /**
     * A schema {@code name} of the test PostgreSQL ({@code TestDatabase}), dropped and created again, with the
     * product's tables; returns the JDBC URL that makes it the current schema.
     */
    public static String freshPostgresSchema(String name) throws Exception {
        dev.projections.testsupport.TestDatabase database = dev.projections.testsupport.TestDatabase.get();
        try (Connection connection = database.connect(); java.sql.Statement statement = connection.createStatement()) {
            statement.execute("DROP SCHEMA IF EXISTS " + name + " CASCADE");
            statement.execute("CREATE SCHEMA " + name);
        }
        String base = database.jdbcUrl();
        String url = base + (base.contains("?") ? "&" : "?") + "currentSchema=" + name;
        update(java.sql.DriverManager.getConnection(url, database.user(), database.password()));
        return url;
    }

    /**
     * Schemas {@code tablesSchema} and {@code defaultSchema} of the test PostgreSQL, dropped and created again, and the
     * product's tables migrated into {@code tablesSchema} as a deployment with {@code projection.table-schema} and
     * Liquibase table names of its own does, over a connection whose default schema is {@code defaultSchema}; returns
     * the JDBC URL of such connections.
     */
    public static String freshPostgresOwnSchema(String tablesSchema, String defaultSchema, String changelogTable,
                                                String lockTable) throws Exception {
        dev.projections.testsupport.TestDatabase database = dev.projections.testsupport.TestDatabase.get();
        try (Connection connection = database.connect(); java.sql.Statement statement = connection.createStatement()) {
            for (String schema : new String[] {tablesSchema, defaultSchema}) {
                statement.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
                statement.execute("CREATE SCHEMA " + schema);
            }
        }
        String base = database.jdbcUrl();
        String url = base + (base.contains("?") ? "&" : "?") + "currentSchema=" + defaultSchema;
        update(java.sql.DriverManager.getConnection(url, database.user(), database.password()), null,
                new ChangelogUpdate(TableSchema.of(tablesSchema), changelogTable, lockTable));
        return url;
    }

    /** An in-memory H2 database {@code name} (user sa, no password), emptied, with the product's tables. */
    public static String freshH2(String name) throws Exception {
        String url = "jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1";
        try (Connection connection = java.sql.DriverManager.getConnection(url, "sa", "");
             java.sql.Statement statement = connection.createStatement()) {
            statement.execute("DROP ALL OBJECTS"); // a fresh database even if another class used the same name
        }
        update(java.sql.DriverManager.getConnection(url, "sa", ""));
        return url;
    }

    /**
     * The MariaDB server of {@code PROJECTION_TEST_MARIADB_URL}; when the variable is not set, the calling test class
     * is skipped, saying which variable to set.
     */
    public static dev.projections.testsupport.MariaDbTestDatabase mariaDb() {
        java.util.Optional<dev.projections.testsupport.MariaDbTestDatabase> server =
                dev.projections.testsupport.MariaDbTestDatabase.fromEnvironment();
        org.junit.jupiter.api.Assumptions.assumeTrue(server.isPresent(), () -> "MariaDB tests skipped: "
                + dev.projections.testsupport.MariaDbTestDatabase.URL + " is not set (e.g. "
                + "jdbc:mariadb://127.0.0.1:3306/projection_test; .ci/run sets it)");
        return server.get();
    }

    /**
     * A database of the test MariaDB ({@link #mariaDb()}) named after {@code suffix}, dropped and created again, with
     * the product's tables; returns its JDBC URL.
     */
    public static String freshMariaDb(String suffix) throws Exception {
        dev.projections.testsupport.MariaDbTestDatabase server = mariaDb();
        String url = server.freshDatabase(suffix);
        update(server.connect(url));
        return url;
    }

    /**
     * Databases {@code <the test database>_<tablesSuffix>} and {@code _<defaultSuffix>} of the test MariaDB, dropped and
     * created again, with the product's tables migrated into the first over a connection to the second, with Liquibase
     * table names of its own; returns {URL of the connections, name of the tables' database}.
     */
    public static String[] freshMariaDbOwnDatabase(String tablesSuffix, String defaultSuffix, String changelogTable,
                                                   String lockTable) throws Exception {
        dev.projections.testsupport.MariaDbTestDatabase server = mariaDb();
        String tablesUrl = server.freshDatabase(tablesSuffix);
        String url = server.freshDatabase(defaultSuffix);
        String tablesDatabase;
        try (Connection connection = server.connect(tablesUrl)) {
            tablesDatabase = connection.getCatalog();
        }
        update(server.connect(url), null, new ChangelogUpdate(TableSchema.of(tablesDatabase), changelogTable, lockTable));
        return new String[] {url, tablesDatabase};
    }

    /** Runs the changelog on {@code connection}'s current schema, then closes the connection. */
    public static void update(Connection connection) throws Exception {
        update(connection, null);
    }

    /** Runs the first {@code count} change sets ({@code null}: all), as a database of an older release has them. */
    public static void update(Connection connection, Integer count) throws Exception {
        update(connection, count, new ChangelogUpdate(TableSchema.DEFAULT, "DATABASECHANGELOG", "DATABASECHANGELOGLOCK"));
    }

    /** Runs the changelog as a deployment with these settings does ({@link ChangelogUpdate}), then closes the connection. */
    public static void update(Connection connection, Integer count, ChangelogUpdate changelog) throws Exception {
        System.setProperty("liquibase.analytics.enabled", "false");
        System.setProperty("liquibase.showBanner", "false");
        LIQUIBASE_LOG.setLevel(Level.WARNING);
        try (connection) {
            // console output (banner, summary) goes to the log, which is quiet below WARNING
            changelog.update(connection, LiquibaseSchema.class.getClassLoader(), count,
                    Map.of(Scope.Attr.ui.name(), new LoggerUIService()));
        }
    }
}
