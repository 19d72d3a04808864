package dev.projections.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.MarkKey;
import dev.projections.inspect.PendingCounts;
import dev.projections.testsupport.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The pending-table contract on PostgreSQL with {@code projection.table-schema} set: the changelog migrated the
 * product's tables into a schema of their own, with Liquibase's tables under names of their own, over connections
 * whose default schema is another one (as {@code public} is an application's), and every statement of the contract
 * runs through {@link TableSchema#connection}. The tests below show where the rows and tables are.
 */
class PostgresOwnSchemaPendingQueueTest extends PendingQueueContract {

    private static final String OWN = "projections_own";
    private static final String DEFAULT = "projections_own_app";
    private static final TableSchema TABLES = TableSchema.of(OWN);

    private static String url;

    @BeforeAll
    static void migrateIntoASchemaOfTheirOwn() throws Exception {
        url = LiquibaseSchema.freshPostgresOwnSchema(OWN, DEFAULT, "app_projection_changelog", "app_projection_lock");
    }

    /** A connection as the datasource hands it out: its default schema is the application's. */
    private static Connection plainConnection() throws SQLException {
        TestDatabase database = TestDatabase.get();
        return DriverManager.getConnection(url, database.user(), database.password());
    }

    @Override
    protected Tables store() {
        return Tables.forProduct("PostgreSQL");
    }

    @Override
    protected Connection connect() throws SQLException {
        return TABLES.connection(plainConnection());
    }

    @Override
    protected long sessionId(Connection connection) throws SQLException {
        return PostgresPendingQueueTest.backendPid(connection);
    }

    @Override
    protected boolean isWaitingForALock(Connection observer, long sessionId) throws SQLException {
        return PostgresPendingQueueTest.waitsForALock(observer, sessionId);
    }

    @Test
    void theChangelogCreatedEveryTableInTheOwnSchemaWithItsOwnChangelogTablesAndNothingInTheDefaultSchema()
            throws Exception {
        try (Connection connection = plainConnection()) {
            assertThat(connection.getSchema()).as("the connection's default schema").isEqualTo(DEFAULT);
            assertThat(tables(connection, DEFAULT)).as("tables in the connection's default schema").isEmpty();
            List<String> expected = new ArrayList<>(TableSchema.TABLES);
            expected.add("app_projection_changelog");
            expected.add("app_projection_lock");
            assertThat(tables(connection, OWN)).containsExactlyInAnyOrderElementsOf(expected);
            assertThat(tablesNamed(connection, "databasechangelog%")).as("Liquibase's default tables, anywhere").isEmpty();
            try (PreparedStatement select = connection.prepareStatement(
                    "SELECT COUNT(*) FROM " + OWN + ".app_projection_changelog");
                 ResultSet rows = select.executeQuery()) {
                rows.next();
                assertThat(rows.getLong(1)).as("change sets recorded in the custom changelog table").isPositive();
            }
        }
    }

    @Test
    void theMarksClaimsAcksAndCountsOfTheEngineUseTheTablesInTheOwnSchema() throws Exception {
        MarkKey first = key(ORDERS, "1");
        MarkKey second = key(ORDERS, "2");
        mark(at(0), first, second);
        assertThat(rowsInOwnSchema()).as("marks written into " + OWN + ".projection_pending").isEqualTo(2);
        PendingCounts counts = new PendingCounts(Dialect.POSTGRESQL);
        try (Connection connection = connect()) {
            assertThat(counts.pending(connection, ORDERS)).isEqualTo(2);
        }

        List<ClaimedMark> claimed = claimDue(at(1), "token-own", 10, ORDERS);
        assertThat(claimed).hasSize(2);
        for (ClaimedMark mark : claimed) {
            assertThat(ack(mark, at(2))).isEqualTo(AckOutcome.SUCCESS);
        }

        assertThat(rowsInOwnSchema()).as("acked marks deleted from " + OWN + ".projection_pending").isZero();
        try (Connection connection = plainConnection()) {
            assertThat(tables(connection, DEFAULT)).as("nothing created in the default schema on the way").isEmpty();
        }
    }

    @Test
    void validateModeFindsTheTablesInTheOwnSchemaAndNotInTheDefaultOne() throws Exception {
        SchemaCheck check = SchemaCheck.ofShippedDdl(getClass().getClassLoader());
        try (Connection connection = plainConnection()) {
            assertThat(check.missing(connection, TABLES)).as("in " + OWN).isEmpty();
            assertThat(check.missing(connection, TableSchema.DEFAULT)).as("in the connection's default schema")
                    .contains("table projection_pending");
        }
    }

    @Test
    void theMigrationLeavesNoSessionStateOnTheConnectionItRanOn() throws Exception {
        // a pooled connection goes back to the application: no search_path of ours may stay on it
        try (Connection connection = plainConnection()) {
            String searchPath = searchPath(connection);
            new ChangelogUpdate(TABLES, "app_projection_changelog", "app_projection_lock").update(connection,
                    getClass().getClassLoader(), null, java.util.Map.of());
            try (java.sql.Statement statement = connection.createStatement();
                 ResultSet rows = statement.executeQuery("SELECT current_schema(), current_setting('search_path')")) {
                rows.next();
                assertThat(rows.getString(1)).isEqualTo(DEFAULT);
                assertThat(rows.getString(2)).isEqualTo(searchPath);
            }
        }
    }

    @Test
    void settingASchemaWhereTheDefaultSchemaHoldsTheTablesAlreadyWarnsNamingTheMove() throws Exception {
        // an installation that ran with its tables in the connection's default schema, then got the setting
        String ran = "projections_own_ran";
        String fresh = "projections_own_fresh";
        String ranUrl = LiquibaseSchema.freshPostgresOwnSchema(ran, ran, "databasechangelog", "databasechangeloglock");
        TestDatabase database = TestDatabase.get();
        try (Connection connection = DriverManager.getConnection(ranUrl, database.user(), database.password());
             java.sql.Statement statement = connection.createStatement()) {
            statement.execute("DROP SCHEMA IF EXISTS " + fresh + " CASCADE");
            statement.execute("CREATE SCHEMA " + fresh);
            assertThat(ChangelogUpdate.tablesLeftBehind(connection, TableSchema.of(fresh), "projection.table-schema"))
                    .hasValueSatisfying(warning -> assertThat(warning)
                            .contains("projection.table-schema=" + fresh + " holds no product tables yet, but " + ran)
                            .contains("ALTER TABLE " + ran + ".projection_pending SET SCHEMA " + fresh));
            assertThat(ChangelogUpdate.tablesLeftBehind(connection, TableSchema.of(ran), "projection.table-schema"))
                    .as("the schema that holds them").isEmpty();
        }
        try (Connection connection = plainConnection()) {
            assertThat(ChangelogUpdate.tablesLeftBehind(connection, TABLES, "projection.table-schema"))
                    .as("tables in the schema set, none in the default one").isEmpty();
        }
    }

    private static String searchPath(Connection connection) throws SQLException {
        try (java.sql.Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery("SELECT current_setting('search_path')")) {
            rows.next();
            return rows.getString(1);
        }
    }

    private static long rowsInOwnSchema() throws SQLException {
        try (Connection connection = plainConnection();
             PreparedStatement select = connection.prepareStatement("SELECT COUNT(*) FROM " + OWN + ".projection_pending");
             ResultSet rows = select.executeQuery()) {
            rows.next();
            return rows.getLong(1);
        }
    }

    private static List<String> tables(Connection connection, String schema) throws SQLException {
        List<String> names = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = ?")) {
            select.setString(1, schema);
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    names.add(rows.getString(1));
                }
            }
        }
        return names;
    }

    private static List<String> tablesNamed(Connection connection, String pattern) throws SQLException {
        List<String> names = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement("SELECT table_schema || '.' || table_name"
                + " FROM information_schema.tables WHERE table_schema IN (?, ?) AND lower(table_name) LIKE ?")) {
            select.setString(1, OWN);
            select.setString(2, DEFAULT);
            select.setString(3, pattern);
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    names.add(rows.getString(1));
                }
            }
        }
        return names;
    }
}
