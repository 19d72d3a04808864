package dev.projections.inspect;

import dev.projections.store.LiquibaseSchema;
import java.sql.Connection;
import java.sql.SQLException;
import org.junit.jupiter.api.BeforeAll;

/** The console's lists and the audit log on MariaDB ({@code PROJECTION_TEST_MARIADB_URL}). */
class MariaDbMarkListsTest extends MarkListsContract {

    private static String url;

    @BeforeAll
    static void createDatabase() throws Exception {
        url = LiquibaseSchema.freshMariaDb("mark_lists");
    }

    @Override
    protected Connection connect() throws SQLException {
        return LiquibaseSchema.mariaDb().connect(url);
    }
}
