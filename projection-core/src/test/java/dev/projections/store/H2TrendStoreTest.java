package dev.projections.store;

import java.sql.DriverManager;
import java.sql.Connection;
import java.sql.SQLException;
import org.junit.jupiter.api.BeforeAll;

/** The console tables' contract on H2. */
class H2TrendStoreTest extends TrendStoreContract {

    private static String url;

    @BeforeAll
    static void createSchema() throws Exception {
        url = LiquibaseSchema.freshH2("trend-store");
    }

    @Override
    protected Connection connect() throws SQLException {
        return DriverManager.getConnection(url, "sa", "");
    }

    @Override
    protected String product() {
        return "H2";
    }
}
