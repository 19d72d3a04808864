package dev.projections.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * How each dialect spells a keyset page's condition and binds it (docs/pitfalls.md #57): a row-value comparison on
 * PostgreSQL and H2, spelled out on MariaDB, where each column but the last is bound twice.
 */
class DialectKeysetTest {

    private static final List<String> KEY = List.of("available_at", "tenant_id", "entity_id");

    @Test
    void postgresqlAndH2CompareRowValues() {
        for (Dialect dialect : List.of(Dialect.POSTGRESQL, Dialect.H2)) {
            assertThat(dialect.keysetCondition(KEY, true)).isEqualTo("(available_at, tenant_id, entity_id) > (?, ?, ?)");
            assertThat(dialect.keysetCondition(KEY, false)).isEqualTo("(available_at, tenant_id, entity_id) < (?, ?, ?)");
            assertThat(dialect.keysetValues(List.of("a", "t", "e"))).containsExactly("a", "t", "e");
            assertThat(dialect.tableReadBy("projection_pending", "projection_pending_due_idx"))
                    .isEqualTo("projection_pending");
        }
    }

    @Test
    void mariaDbSpellsTheComparisonOutAndBindsEachLeadingColumnTwice() {
        assertThat(Dialect.MARIADB.keysetCondition(KEY, true)).isEqualTo(
                "(available_at > ? OR available_at = ? AND (tenant_id > ? OR tenant_id = ? AND entity_id > ?))");
        assertThat(Dialect.MARIADB.keysetCondition(List.of("available_at", "entity_id"), false))
                .isEqualTo("(available_at < ? OR available_at = ? AND entity_id < ?)");
        assertThat(Dialect.MARIADB.keysetCondition(List.of("id"), false)).isEqualTo("(id < ?)");
        assertThat(Dialect.MARIADB.keysetValues(List.of("a", "t", "e"))).containsExactly("a", "a", "t", "t", "e");
        assertThat(Dialect.MARIADB.keysetValues(List.of("a", "e"))).containsExactly("a", "a", "e");
        assertThat(Dialect.MARIADB.tableReadBy("projection_pending", "projection_pending_due_idx"))
                .isEqualTo("projection_pending FORCE INDEX (projection_pending_due_idx)");
    }
}
