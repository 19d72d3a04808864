package dev.projections.store;

import dev.projections.testsupport.TestDatabase;
import java.sql.DriverManager;
import java.sql.Connection;
import java.sql.SQLException;
import org.junit.jupiter.api.BeforeAll;

/** The console tables' contract on PostgreSQL. */
class PostgresTrendStoreTest extends TrendStoreContract {

    private static String url;

    @BeforeAll
    static void createSchema() throws Exception {
        url = LiquibaseSchema.freshPostgresSchema("trend_store_contract");
    }

    @Override
    protected Connection connect() throws SQLException {
        TestDatabase database = TestDatabase.get();
        return DriverManager.getConnection(url, database.user(), database.password());
    }

    @Override
    protected String product() {
        return "PostgreSQL";
    }
}
