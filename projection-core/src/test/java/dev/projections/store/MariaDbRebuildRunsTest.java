package dev.projections.store;

import java.sql.Connection;
import java.sql.SQLException;
import org.junit.jupiter.api.BeforeAll;

/** The rebuild-run contract on MariaDB, in a database of its own. */
class MariaDbRebuildRunsTest extends RebuildRunsContract {

    private static String url;

    @BeforeAll
    static void createDatabase() throws Exception {
        url = LiquibaseSchema.freshMariaDb("rebuild_store");
    }

    @Override
    protected Connection connect() throws SQLException {
        return LiquibaseSchema.mariaDb().connect(url);
    }

    @Override
    protected Tables pendingStore() {
        return Tables.forProduct("MariaDB");
    }
}
