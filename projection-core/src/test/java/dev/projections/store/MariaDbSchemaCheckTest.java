package dev.projections.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

/** projection.schema=validate on MariaDB: checked against the MariaDB DDL the build generated, in its own database. */
class MariaDbSchemaCheckTest {

    private final SchemaCheck check = SchemaCheck.ofShippedDdl(getClass().getClassLoader());

    @Test
    void theMigratedSchemaPassesAndAMissingIndexOrColumnIsNamedWithTheMariaDbDdl() throws Exception {
        String url = LiquibaseSchema.freshMariaDb("schema_check");
        try (Connection connection = LiquibaseSchema.mariaDb().connect(url)) {
            assertThat(check.missing(connection)).isEmpty();
            try (Statement statement = connection.createStatement()) {
                statement.execute("DROP INDEX projection_pending_due_idx ON projection_pending");
                statement.execute("ALTER TABLE projection_control DROP COLUMN probed_at");
            }
            assertThat(check.missing(connection))
                    .containsExactly("column projection_control.probed_at", "index projection_pending_due_idx");
            assertThatThrownBy(() -> check.require(connection))
                    .hasMessageContaining("DATETIME(6)").hasMessageNotContaining("TIMESTAMP WITH TIME ZONE");
        }
    }

    @Test
    void aKeyColumnWhoseCollationFoldsCaseOrTrailingSpacesIsNamed() throws Exception {
        String url = LiquibaseSchema.freshMariaDb("schema_collation");
        try (Connection connection = LiquibaseSchema.mariaDb().connect(url)) {
            try (Statement statement = connection.createStatement()) {
                // as a table created by hand with the server's default collation would be
                statement.execute("ALTER TABLE projection_audit MODIFY entity_id VARCHAR(200)"
                        + " CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci");
            }
            assertThat(check.missing(connection)).containsExactly("column projection_audit.entity_id in a binary "
                    + "no-pad collation (utf8mb4_nopad_bin; MySQL: utf8mb4_0900_bin), not utf8mb4_general_ci");
        }
    }

    @Test
    void anEmptyDatabaseLacksEveryTable() throws Exception {
        String url = LiquibaseSchema.mariaDb().freshDatabase("schema_empty");
        try (Connection connection = LiquibaseSchema.mariaDb().connect(url)) {
            assertThat(check.missing(connection)).contains("table projection_pending", "table projection_rebuild",
                    "table projection_audit");
        }
    }
}
