package dev.projections.inspect;

import dev.projections.store.LiquibaseSchema;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.BeforeAll;

/** The console's lists on H2 2.2, the demo's database. */
class H2MarkListsTest extends MarkListsContract {

    private static final String URL = "jdbc:h2:mem:lists;DB_CLOSE_DELAY=-1";

    @BeforeAll
    static void createSchema() throws Exception {
        try (Connection connection = DriverManager.getConnection(URL, "sa", "");
             Statement statement = connection.createStatement()) {
            statement.execute("DROP ALL OBJECTS");
        }
        LiquibaseSchema.update(DriverManager.getConnection(URL, "sa", ""));
    }

    @Override
    protected Connection connect() throws SQLException {
        return DriverManager.getConnection(URL, "sa", "");
    }
}
