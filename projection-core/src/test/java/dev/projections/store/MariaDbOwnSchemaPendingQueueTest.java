package dev.projections.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.MarkKey;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The pending-table contract on MariaDB with {@code projection.table-schema} set: there a schema is a database, so the
 * product's tables live in a database of their own while the connections use the application's.
 */
class MariaDbOwnSchemaPendingQueueTest extends PendingQueueContract {

    private static String url;
    private static String own;
    private static TableSchema tables;

    @BeforeAll
    static void migrateIntoADatabaseOfTheirOwn() throws Exception {
        String[] created = LiquibaseSchema.freshMariaDbOwnDatabase("own_tables", "own_app", "app_projection_changelog",
                "app_projection_lock");
        url = created[0];
        own = created[1];
        tables = TableSchema.of(own);
    }

    private static Connection plainConnection() throws SQLException {
        return LiquibaseSchema.mariaDb().connect(url);
    }

    @Override
    protected Tables store() {
        return Tables.forProduct("MariaDB");
    }

    @Override
    protected boolean claimsPastHeldRows() {
        return false; // its claim locks only its candidates (docs/pitfalls.md #94): beside a claimer of them, short
    }

    @Override
    protected Connection connect() throws SQLException {
        return tables.connection(plainConnection());
    }

    private final MariaDbSessions sessions = new MariaDbSessions();

    @Override
    protected long sessionId(Connection connection) throws SQLException {
        return MariaDbSessions.connectionId(connection);
    }

    @Override
    protected boolean isWaitingForALock(Connection observer, long sessionId) throws SQLException {
        return sessions.isWaitingForALock(observer, sessionId);
    }

    @Test
    void theTablesAndTheCustomChangelogTablesAreInTheOwnDatabaseAndNothingInTheApplicationsOne() throws Exception {
        try (Connection connection = plainConnection()) {
            String application = connection.getCatalog();
            assertThat(tablesOf(connection, application)).as("tables in the connection's database").isEmpty();
            List<String> expected = new ArrayList<>(TableSchema.TABLES);
            expected.add("app_projection_changelog");
            expected.add("app_projection_lock");
            assertThat(tablesOf(connection, own)).containsExactlyInAnyOrderElementsOf(expected);
        }
    }

    @Test
    void marksClaimsAndAcksUseTheOwnDatabaseAndValidateModeLooksThere() throws Exception {
        MarkKey first = key(ORDERS, "1");
        mark(at(0), first);
        List<ClaimedMark> claimed = claimDue(at(1), "token-own", 10, ORDERS);
        assertThat(claimed).hasSize(1);
        try (Connection connection = plainConnection();
             PreparedStatement select = connection.prepareStatement(
                     "SELECT claim_token FROM " + own + ".projection_pending");
             ResultSet rows = select.executeQuery()) {
            assertThat(rows.next()).isTrue();
            assertThat(rows.getString(1)).isEqualTo("token-own");
        }
        assertThat(ack(claimed.get(0), at(2))).isEqualTo(AckOutcome.SUCCESS);
        try (Connection connection = plainConnection()) {
            assertThat(SchemaCheck.ofShippedDdl(getClass().getClassLoader()).missing(connection, tables)).isEmpty();
            assertThat(tablesOf(connection, connection.getCatalog())).isEmpty();
        }
    }

    @Test
    void theMigrationLeavesTheConnectionOnTheApplicationsDatabase() throws Exception {
        // Liquibase would USE the tables' database: a pooled connection must go back to the application as it came
        try (Connection connection = plainConnection()) {
            String application = connection.getCatalog();
            new ChangelogUpdate(tables, "app_projection_changelog", "app_projection_lock").update(connection,
                    getClass().getClassLoader(), null, java.util.Map.of());
            try (Statement statement = connection.createStatement();
                 ResultSet rows = statement.executeQuery("SELECT DATABASE()")) {
                rows.next();
                assertThat(rows.getString(1)).isEqualTo(application);
            }
        }
    }

    private static List<String> tablesOf(Connection connection, String database) throws SQLException {
        List<String> names = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement(
                "SELECT LOWER(TABLE_NAME) FROM information_schema.TABLES WHERE TABLE_SCHEMA = ?")) {
            select.setString(1, database);
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    names.add(rows.getString(1));
                }
            }
        }
        return names;
    }
}
