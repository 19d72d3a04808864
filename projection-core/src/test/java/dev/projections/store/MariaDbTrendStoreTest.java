package dev.projections.store;

import java.sql.Connection;
import java.sql.SQLException;
import org.junit.jupiter.api.BeforeAll;

/** The console tables' contract on MariaDB. */
class MariaDbTrendStoreTest extends TrendStoreContract {

    private static String url;

    @BeforeAll
    static void createSchema() throws Exception {
        url = LiquibaseSchema.freshMariaDb("trend_store");
    }

    @Override
    protected Connection connect() throws SQLException {
        return LiquibaseSchema.mariaDb().connect(url);
    }

    @Override
    protected String product() {
        return "MariaDB";
    }
}
