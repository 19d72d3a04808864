package dev.projections.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

/** projection.schema=validate against H2: the DDL the build generated is the expected schema. */
class SchemaCheckTest {

    private final SchemaCheck check = SchemaCheck.ofShippedDdl(getClass().getClassLoader());

    @Test
    void anEmptyDatabaseLacksEveryTableAndTheErrorCarriesTheDdl() throws Exception {
        try (Connection connection = DriverManager.getConnection("jdbc:h2:mem:schema-empty")) {
            assertThat(check.missing(connection)).contains("table projection_pending", "table projection_instance");
            assertThatThrownBy(() -> check.require(connection))
                    .hasMessageContaining("projection.schema=validate: the database lacks table projection_pending")
                    .hasMessageContaining("CREATE TABLE projection_pending");
        }
    }

    @Test
    void theMigratedSchemaPassesAndAMissingIndexIsNamed() throws Exception {
        String url = "jdbc:h2:mem:schema-full;DB_CLOSE_DELAY=-1";
        LiquibaseSchema.update(DriverManager.getConnection(url));
        try (Connection connection = DriverManager.getConnection(url)) {
            assertThat(check.missing(connection)).isEmpty();
            check.require(connection);
            try (Statement statement = connection.createStatement()) {
                statement.execute("DROP INDEX projection_pending_due_idx");
            }
            assertThat(check.missing(connection)).containsExactly("index projection_pending_due_idx");
        }
    }

    @Test
    void aColumnAddedByALaterChangeIsRequiredToo() throws Exception {
        String url = "jdbc:h2:mem:schema-added;DB_CLOSE_DELAY=-1";
        LiquibaseSchema.update(DriverManager.getConnection(url));
        try (Connection connection = DriverManager.getConnection(url)) {
            try (Statement statement = connection.createStatement()) {
                statement.execute("ALTER TABLE projection_pending DROP COLUMN parked_at");
            }
            assertThat(check.missing(connection)).containsExactly("column projection_pending.parked_at");
        }
    }

    /*
     * MySQL 8 is validated against its own DDL: MariaDB's names utf8mb4_nopad_bin, which MySQL lacks. The two must not
     * drift apart in anything else.
     */
    @Test
    void theMySqlDdlIsMariaDbsWithMySqlsBinaryNoPadCollation() throws Exception {
        ClassLoader loader = getClass().getClassLoader();
        String mariadb = statements(loader, SchemaCheck.MARIADB_DDL);
        String mysql = statements(loader, SchemaCheck.MYSQL_DDL);
        assertThat(mysql).contains("COLLATE=utf8mb4_0900_bin").doesNotContain("nopad");
        assertThat(mysql).isEqualTo(mariadb.replace("utf8mb4_nopad_bin", "utf8mb4_0900_bin"));
    }

    /** The DDL without Liquibase's header comments, which name the offline target. */
    private static String statements(ClassLoader loader, String resource) throws Exception {
        try (java.io.InputStream in = loader.getResourceAsStream(resource)) {
            assertThat(in).as(resource).isNotNull();
            return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).lines()
                    .filter(line -> !line.startsWith("--")).collect(java.util.stream.Collectors.joining("\n"));
        }
    }
}
