package dev.projections.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The claim's plan on MariaDB with 300,000 marks over three projections (a rebuild beside live marks): each
 * projection's part reads the claim index in its order under its LIMIT — no full scan, no sort of the due set, which
 * a locking read would keep locked whole; only the union of the few candidates is sorted. Plans, not times.
 */
class MariaDbClaimPlanTest {

    private static final Instant NOW = Instant.parse("2030-01-01T12:00:00Z");
    private static String url;

    @BeforeAll
    static void manyMarks() throws Exception {
        url = LiquibaseSchema.freshMariaDb("claim_plan");
        try (Connection connection = LiquibaseSchema.mariaDb().connect(url);
             Statement statement = connection.createStatement()) {
            // every tenth mark live, the rest a rebuild's; due one millisecond apart; 1% leased
            statement.execute("""
                    INSERT INTO projection_pending (projection, tenant_id, entity_id, generation, priority,
                        available_at, first_marked_at, claim_token, claimed_until)
                    SELECT CONCAT('p', seq % 3), '', LPAD(seq, 8, '0'), 'g', CASE WHEN seq % 10 = 0 THEN 0 ELSE 1 END,
                           TIMESTAMP '2030-01-01 10:00:00' + INTERVAL (300000 - seq) * 1000 MICROSECOND,
                           TIMESTAMP '2030-01-01 10:00:00',
                           CASE WHEN seq % 100 = 1 THEN 't' END,
                           CASE WHEN seq % 100 = 1 THEN TIMESTAMP '2030-01-01 12:01:00' END
                      FROM seq_1_to_300000""");
            statement.execute("ANALYZE TABLE projection_pending");
        }
    }

    @Test
    void eachProjectionsPartOfTheClaimReadsTheClaimIndexInOrderWithoutSorting() throws SQLException {
        MariaDbPendingQueue store = (MariaDbPendingQueue) Tables.forProduct("MariaDB").queue();
        List<String> parts = new ArrayList<>();
        try (Connection connection = LiquibaseSchema.mariaDb().connect(url);
             PreparedStatement explain = connection.prepareStatement("EXPLAIN " + store.claimDueSql(3, 100))) {
            int i = 1;
            for (String projection : List.of("p0", "p1", "p2")) {
                explain.setString(i++, projection);
                explain.setInt(i++, PendingQueue.LIVE);
                explain.setObject(i++, Dialect.MARIADB.timestamp(NOW));
                explain.setObject(i++, Dialect.MARIADB.timestamp(NOW));
            }
            try (ResultSet plan = explain.executeQuery()) {
                while (plan.next()) {
                    if ("projection_pending".equals(plan.getString("table"))) {
                        parts.add(plan.getString("type") + " " + plan.getString("key") + " " + plan.getString("Extra"));
                    }
                }
            }
        }
        assertThat(parts).as("one part per projection").hasSize(3).allSatisfy(part -> assertThat(part)
                .contains("projection_pending_claim_idx").doesNotContain("filesort").doesNotStartWith("ALL"));
    }

    /** A take's delete (design D61) finds the rows it locked by the primary key, one key or several. */
    @Test
    void aTakeDeletesItsLockedRowsThroughThePrimaryKey() throws SQLException {
        MariaDbPendingQueue store = (MariaDbPendingQueue) Tables.forProduct("MariaDB").queue();
        for (int keys : new int[] {1, 3}) {
            try (Connection connection = LiquibaseSchema.mariaDb().connect(url);
                 PreparedStatement explain = connection.prepareStatement("EXPLAIN " + store.takeSql(keys))) {
                int i = 1;
                for (int k = 0; k < keys; k++) {
                    explain.setString(i++, "p" + k);
                    explain.setString(i++, "");
                    explain.setString(i++, String.format("%08d", 3 * k + 3));
                }
                try (ResultSet plan = explain.executeQuery()) {
                    assertThat(plan.next()).isTrue();
                    assertThat(plan.getString("type") + " " + plan.getString("key") + " " + plan.getString("rows"))
                            .as(keys + " key(s)").isEqualTo("range PRIMARY " + keys);
                }
            }
        }
    }
}
