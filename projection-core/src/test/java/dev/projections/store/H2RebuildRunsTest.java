package dev.projections.store;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import org.junit.jupiter.api.BeforeAll;

/** The rebuild-run contract on H2. */
class H2RebuildRunsTest extends RebuildRunsContract {

    private static String url;

    @BeforeAll
    static void createSchema() throws Exception {
        url = LiquibaseSchema.freshH2("rebuild-store");
    }

    @Override
    protected Connection connect() throws SQLException {
        return DriverManager.getConnection(url, "sa", "");
    }

    @Override
    protected Tables pendingStore() {
        return Tables.forProduct("H2");
    }
}
