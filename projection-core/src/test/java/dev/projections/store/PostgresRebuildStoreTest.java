package dev.projections.store;

import dev.projections.testsupport.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import org.junit.jupiter.api.BeforeAll;

/** The rebuild-run contract on PostgreSQL, in a schema of its own. */
class PostgresRebuildStoreTest extends RebuildStoreContract {

    private static String url;

    @BeforeAll
    static void createSchema() throws Exception {
        url = LiquibaseSchema.freshPostgresSchema("rebuild_store_contract");
    }

    @Override
    protected Connection connect() throws SQLException {
        TestDatabase database = TestDatabase.get();
        return DriverManager.getConnection(url, database.user(), database.password());
    }

    @Override
    protected Tables pendingStore() {
        return Tables.forProduct("PostgreSQL");
    }
}
