package dev.projections.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The engine's transactions on MariaDB run at READ COMMITTED whatever the connection's level, and only they
 * (docs/design.md D28). Levels are observed by what a plain read sees: at READ COMMITTED each read sees what others
 * committed since, at REPEATABLE READ the transaction's first snapshot.
 */
class MariaDbEngineIsolationTest {

    private static String url;

    private final Dialect dialect = Dialect.MARIADB;

    @BeforeAll
    static void createDatabase() throws Exception {
        url = LiquibaseSchema.freshMariaDb("isolation");
    }

    @BeforeEach
    void emptyTable() throws SQLException {
        try (Connection connection = connect(); Statement statement = connection.createStatement()) {
            statement.execute("DELETE FROM projection_control");
        }
    }

    private static Connection connect() throws SQLException {
        return LiquibaseSchema.mariaDb().connect(url);
    }

    @Test
    void theEnginesTransactionSeesOthersCommitsAndTheNextTransactionIsBackAtTheConnectionsLevel() throws Exception {
        try (Connection engine = connect(); Connection other = connect()) {
            assertThat(engine.getTransactionIsolation()).as("the server's default")
                    .isEqualTo(Connection.TRANSACTION_REPEATABLE_READ);
            engine.setAutoCommit(false);

            // as JtaTransactions runs it
            Tables.forProduct("MariaDB").beginEngineTransaction(engine);
            assertThat(controlRows(engine)).isZero();
            insertControlRow(other, "a");
            assertThat(controlRows(engine)).as("READ COMMITTED: a commit made since is seen").isEqualTo(1);
            engine.commit();

            assertThat(controlRows(engine)).isEqualTo(1);
            insertControlRow(other, "b");
            assertThat(controlRows(engine)).as("REPEATABLE READ again: the first snapshot holds").isEqualTo(1);
            engine.commit();
            assertThat(engine.getTransactionIsolation()).isEqualTo(Connection.TRANSACTION_REPEATABLE_READ);
        }
    }

    @Test
    void aTransactionThatBeganAtRepeatableReadIsRefusedNamingTheDatasourceSetting() throws Exception {
        try (Connection engine = connect()) {
            engine.setAutoCommit(false);
            controlRows(engine); // the transaction has begun, at REPEATABLE READ

            assertThatThrownBy(() -> dialect.beginEngineTransaction(engine))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("READ COMMITTED")
                    .hasMessageContaining("transaction-isolation");
            engine.rollback();
        }
    }

    @Test
    void aTransactionThatBeganAtReadCommittedIsAccepted() throws Exception {
        try (Connection engine = connect()) {
            engine.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED); // as a datasource may set it
            engine.setAutoCommit(false);
            controlRows(engine);

            dialect.beginEngineTransaction(engine);
            engine.rollback();
        }
    }

    private static long controlRows(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery("SELECT COUNT(*) FROM projection_control")) {
            rows.next();
            return rows.getLong(1);
        }
    }

    private static void insertControlRow(Connection connection, String projection) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.executeUpdate("INSERT INTO projection_control (projection, paused) VALUES ('" + projection + "', FALSE)");
        }
    }
}
