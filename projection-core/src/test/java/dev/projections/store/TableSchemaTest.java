package dev.projections.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.DriverManager;
import org.junit.jupiter.api.Test;

class TableSchemaTest {

    private final TableSchema own = TableSchema.of("own");

    @Test
    void withoutASchemaStatementsAndConnectionsAreLeftAsTheyAre() throws Exception {
        String sql = "SELECT * FROM projection_pending";
        assertThat(TableSchema.DEFAULT.qualify(sql)).isSameAs(sql);
        try (Connection connection = DriverManager.getConnection("jdbc:h2:mem:table-schema-default", "sa", "")) {
            assertThat(TableSchema.DEFAULT.connection(connection)).isSameAs(connection);
        }
    }

    @Test
    void everyProductTableIsQualifiedAsAWholeWord() {
        assertThat(own.qualify("""
                SELECT p.entity_id FROM projection_pending p JOIN projection_control c ON c.projection = p.projection
                 WHERE NOT EXISTS (SELECT 1 FROM projection_rebuild_partition x, projection_rebuild r)"""))
                .isEqualTo("""
                SELECT p.entity_id FROM own.projection_pending p JOIN own.projection_control c ON c.projection = p.projection
                 WHERE NOT EXISTS (SELECT 1 FROM own.projection_rebuild_partition x, own.projection_rebuild r)""");
        assertThat(own.qualify("INSERT INTO projection_audit(at) VALUES (?); UPDATE projection_node SET x = 1;"
                + " DELETE FROM projection_trend; MERGE INTO projection_instance"))
                .isEqualTo("INSERT INTO own.projection_audit(at) VALUES (?); UPDATE own.projection_node SET x = 1;"
                        + " DELETE FROM own.projection_trend; MERGE INTO own.projection_instance");
    }

    @Test
    void indexNamesColumnsQuotedTextCommentsAndQualifiedNamesStayAsTheyAre() {
        String sql = "SELECT projection FROM projection_pending FORCE INDEX (projection_pending_due_idx)"
                + " WHERE last_error = 'projection_pending' AND \"projection_control\" IS NULL"
                + " -- don't projection_control\n AND other.projection_pending.x = 1 /* projection_node's */";
        assertThat(own.qualify(sql)).isEqualTo(
                "SELECT projection FROM own.projection_pending FORCE INDEX (projection_pending_due_idx)"
                + " WHERE last_error = 'projection_pending' AND \"projection_control\" IS NULL"
                + " -- don't projection_control\n AND other.projection_pending.x = 1 /* projection_node's */");
        assertThat(own.qualify("SELECT 'it''s projection_pending', x FROM projection_node"))
                .isEqualTo("SELECT 'it''s projection_pending', x FROM own.projection_node");
    }

    @Test
    void postgreSqlsDropIndexIsQualifiedAndMariaDbsNamesItsTableInstead() {
        assertThat(own.qualify("DROP INDEX projection_pending_tenant_priority_idx"))
                .isEqualTo("DROP INDEX own.projection_pending_tenant_priority_idx");
        assertThat(own.qualify("drop index if exists projection_pending_rebuild_idx"))
                .isEqualTo("drop index if exists own.projection_pending_rebuild_idx");
        assertThat(own.qualify("DROP INDEX projection_trend_minute_idx ON projection_trend"))
                .isEqualTo("DROP INDEX projection_trend_minute_idx ON own.projection_trend");
        assertThat(own.qualify("DROP INDEX own.projection_pending_rebuild_idx"))
                .isEqualTo("DROP INDEX own.projection_pending_rebuild_idx");
    }

    @Test
    void qualifyingTwiceChangesNothingMore() {
        String once = own.qualify("DROP INDEX projection_pending_rebuild_idx; SELECT * FROM projection_pending");
        assertThat(own.qualify(once)).isEqualTo(once);
    }

    @Test
    void statementsThroughTheConnectionAndItsPlainStatementsAddressTheSchema() throws Exception {
        try (Connection raw = DriverManager.getConnection("jdbc:h2:mem:table-schema-conn;DB_CLOSE_DELAY=-1", "sa", "");
             java.sql.Statement setup = raw.createStatement()) {
            setup.execute("DROP ALL OBJECTS");
            setup.execute("CREATE SCHEMA own");
            setup.execute("CREATE TABLE own.projection_control (projection VARCHAR(100) PRIMARY KEY)");
            Connection connection = TableSchema.of("OWN").connection(raw);
            assertThat(connection).isNotSameAs(raw).isEqualTo(connection);
            try (java.sql.PreparedStatement insert = connection.prepareStatement(
                    "INSERT INTO projection_control (projection) VALUES (?)")) {
                insert.setString(1, "a");
                insert.executeUpdate();
            }
            try (java.sql.Statement plain = connection.createStatement();
                 java.sql.ResultSet rows = plain.executeQuery("SELECT COUNT(*) FROM projection_control")) {
                rows.next();
                assertThat(rows.getInt(1)).isEqualTo(1);
            }
        }
    }
}
