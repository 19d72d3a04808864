package dev.projections.inspect;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.store.LiquibaseSchema;
import dev.projections.testsupport.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The console's lists on PostgreSQL, and their plans (docs/contract.md §12): with 200,000 marks, the page queries of the
 * pending and failing lists — first page, next, previous, per filter — are index scans under a LIMIT with no sort
 * node (see {@link #fewRowsByNature} for the filters that may sort a handful of rows). Plans, not times.
 */
class PostgresMarkListsTest extends MarkListsContract {

    private static final String SCHEMA = "mark_lists_contract";
    private static String url;

    @BeforeAll
    static void createSchema() throws Exception {
        url = LiquibaseSchema.freshPostgresSchema(SCHEMA);
    }

    @Override
    protected Connection connect() throws SQLException {
        TestDatabase database = TestDatabase.get();
        return DriverManager.getConnection(url, database.user(), database.password());
    }

    @Test
    void everyPageQueryIsAnIndexScanUnderALimitWithoutSorting() throws SQLException {
        try (Connection connection = connect(); Statement statement = connection.createStatement()) {
            // 200,000 marks of four projections in 20 tenants, 5% failing, then fresh statistics
            statement.execute("""
                    INSERT INTO projection_pending (projection, tenant_id, entity_id, generation, available_at,
                        first_marked_at, attempts, last_error)
                    SELECT 'p' || (i % 4), 't' || (i % 20), lpad(i::text, 7, '0'), 'g',
                           TIMESTAMPTZ '2030-01-01 10:00:00+00' + (i % 5000) * INTERVAL '1 second',
                           TIMESTAMPTZ '2030-01-01 10:00:00+00',
                           CASE WHEN i % 20 = 7 THEN 3 ELSE 0 END, CASE WHEN i % 20 = 7 THEN 'boom' END
                      FROM generate_series(1, 200000) AS i""");
            statement.execute("ANALYZE projection_pending");

            List<MarkFilter> filters = new ArrayList<>();
            for (MarkFilter base : List.of(MarkFilter.pending("p1"), MarkFilter.failing("p3"))) {
                for (MarkState state : MarkState.values()) {
                    filters.add(base.withState(state));
                    filters.add(base.withState(state).withTenant("t7"));
                }
            }
            List<String> bad = new ArrayList<>();
            for (MarkFilter filter : filters) {
                for (boolean fromCursor : new boolean[] {false, true}) {
                    for (boolean forward : new boolean[] {true, false}) {
                        String plan = plan(connection, filter, fromCursor, forward);
                        // strict: an index read in its order (not a bitmap scan), no sort
                        boolean ordered = fewRowsByNature(filter) ? plan.contains("Index")
                                : !plan.contains("Sort") && plan.matches("(?s).*(?<!Bitmap )Index (Only )?Scan.*");
                        if (!plan.contains("Limit") || !ordered || plan.contains("Seq Scan")) {
                            bad.add("%s, cursor %s, forward %s:%n%s".formatted(filter, fromCursor, forward, plan));
                        }
                    }
                }
            }
            assertThat(bad).isEmpty();
        }
    }

    @Test
    void findingAnIdReadsTheEntityIndexNotTheQueue() throws SQLException {
        try (Connection connection = connect(); Statement statement = connection.createStatement()) {
            statement.execute("""
                    INSERT INTO projection_pending (projection, tenant_id, entity_id, generation, available_at,
                        first_marked_at, attempts)
                    SELECT 'p' || (i % 4), 't' || (i % 20), lpad(i::text, 7, '0'), 'g',
                           TIMESTAMPTZ '2030-01-01 10:00:00+00', TIMESTAMPTZ '2030-01-01 10:00:00+00', 0
                      FROM generate_series(1, 100000) AS i""");
            statement.execute("ANALYZE projection_pending");
            StringBuilder plan = new StringBuilder();
            try (PreparedStatement explain = connection.prepareStatement("EXPLAIN " + lists.findByIdSql(dev.projections.store.Dialect.POSTGRESQL, 100))) {
                explain.setString(1, "0004242");
                try (ResultSet rows = explain.executeQuery()) {
                    while (rows.next()) {
                        plan.append(rows.getString(1)).append('\n');
                    }
                }
            }
            assertThat(plan.toString()).contains("projection_pending_entity_idx").doesNotContain("Seq Scan");
        }
    }

    @Test
    void everyAuditFilterReadsAnIndexNotTheWholeLog() throws SQLException {
        try (Connection connection = connect(); Statement statement = connection.createStatement()) {
            // 200,000 actions over 200,000 minutes: 50 users, 10 actions, 100 projections, one rare user and action
            statement.execute("""
                    INSERT INTO projection_audit (at, user_name, action, projection, tenant_id, entity_id)
                    SELECT TIMESTAMPTZ '2030-01-01 10:00:00+00' + i * INTERVAL '1 minute',
                           CASE WHEN i % 50000 = 0 THEN 'rare' ELSE 'u' || (i % 50) END,
                           CASE WHEN i % 50000 = 1 THEN 'purge' ELSE 'a' || (i % 10) END,
                           'p' || (i % 100), '', i::text
                      FROM generate_series(1, 200000) AS i""");
            statement.execute("ANALYZE projection_audit");
            // each filter's first page starts in the filter's own index; a next page starts from the id of a row of
            // the filter (the time range's rows have ids near 1,000: its minutes)
            java.time.Instant from = T0.plus(java.time.Duration.ofMinutes(1000));
            Map<AuditFilter, String> firstPageIndex = new LinkedHashMap<>();
            firstPageIndex.put(new AuditFilter("rare", null, null, null, null), "projection_audit_user_idx");
            firstPageIndex.put(new AuditFilter(null, "purge", null, null, null), "projection_audit_action_idx");
            firstPageIndex.put(new AuditFilter(null, null, "p7", null, null), "projection_audit_projection_idx");
            firstPageIndex.put(new AuditFilter(null, null, null, from, from.plus(java.time.Duration.ofHours(2))),
                    "projection_audit_at_idx");
            firstPageIndex.put(new AuditFilter("u3", "a3", null, null, null), "projection_audit_(user|action)_idx");
            List<String> bad = new ArrayList<>();
            for (Map.Entry<AuditFilter, String> expected : firstPageIndex.entrySet()) {
                AuditFilter filter = expected.getKey();
                for (Long beforeId : new Long[] {null, filter.from() != null ? 1_060L : 150_000L}) {
                    String plan = auditPlan(connection, filter, beforeId);
                    // the filter's own index, walked in order under the limit; for a rare value PostgreSQL may as well
                    // collect its few rows through that index and sort them (a bitmap scan): a cost of the filter's
                    // rows, not of the log
                    boolean indexed = beforeId != null ? plan.contains("Index")
                            : plan.matches("(?s).*Index (Only )?Scan (Backward )?using " + expected.getValue() + " .*")
                            || plan.matches("(?s).*Bitmap Index Scan on " + expected.getValue() + " .*");
                    if (!plan.contains("Limit") || !indexed || plan.contains("Seq Scan")) {
                        bad.add("%s, before %s:%n%s".formatted(filter, beforeId, plan));
                    }
                }
            }
            assertThat(bad).isEmpty();
        } finally {
            try (Connection connection = connect(); Statement statement = connection.createStatement()) {
                statement.execute("DELETE FROM projection_audit");
            }
        }
    }

    private static String auditPlan(Connection connection, AuditFilter filter, Long beforeId) throws SQLException {
        AuditLog audit = new AuditLog();
        try (PreparedStatement explain = connection.prepareStatement("EXPLAIN "
                + audit.pageSql(dev.projections.store.Dialect.POSTGRESQL, filter, beforeId != null, 51))) {
            AuditLog.bind(explain, dev.projections.store.Dialect.POSTGRESQL, filter, beforeId);
            StringBuilder plan = new StringBuilder();
            try (ResultSet rows = explain.executeQuery()) {
                while (rows.next()) {
                    plan.append(rows.getString(1)).append('\n');
                }
            }
            return plan.toString();
        }
    }

    /**
     * Leased marks (at most workers x batch size per instance) and one tenant's failing marks are few by nature:
     * the planner rightly sorts that handful after an index scan instead of walking an index in order. These
     * must still use an index; every other list must be read in index order with no sort.
     */
    private static boolean fewRowsByNature(MarkFilter filter) {
        return filter.state() == MarkState.CLAIMED
                || filter.tenant() != null && (filter.failingOnly() || filter.state() == MarkState.BACKING_OFF);
    }

    private String plan(Connection connection, MarkFilter filter, boolean fromCursor, boolean forward)
            throws SQLException {
        String sql = lists.pageSql(dev.projections.store.Dialect.POSTGRESQL, filter, forward, fromCursor, 51);
        try (PreparedStatement explain = connection.prepareStatement("EXPLAIN " + sql)) {
            MarkLists.bindPage(explain, dev.projections.store.Dialect.POSTGRESQL, filter, T0.plusSeconds(2500),
                    fromCursor ? new PageCursor(T0.plusSeconds(2000), "t3", "0100000") : null);
            StringBuilder plan = new StringBuilder();
            try (ResultSet rows = explain.executeQuery()) {
                while (rows.next()) {
                    plan.append(rows.getString(1)).append('\n');
                }
            }
            return plan.toString();
        }
    }
}
