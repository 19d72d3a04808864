package dev.projections.inspect;

import dev.projections.store.LiquibaseSchema;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import org.junit.jupiter.api.BeforeAll;

/** The console's lists on H2 2.2, the demo's database. */
class H2MarkListsTest extends MarkListsContract {

    private static String url;

    @BeforeAll
    static void createSchema() throws Exception {
        url = LiquibaseSchema.freshH2("lists");
    }

    @Override
    protected Connection connect() throws SQLException {
        return DriverManager.getConnection(url, "sa", "");
    }
}
