package dev.projections.inspect;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.store.Dialect;
import dev.projections.store.LiquibaseSchema;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The console's lists and the audit log on MariaDB ({@code PROJECTION_TEST_MARIADB_URL}), and the plans of the lists
 * (docs/contract.md §12): with 200,000 marks, every page query — first page, next, previous, per filter and state —
 * reads the list's index in its order with no sort, and a page from a cursor reads a range that starts at the cursor,
 * not the projection's (or tenant's) marks from the first one (docs/pitfalls.md #57). Unlike on PostgreSQL no filter is
 * excused from the order: the page names its index. Plans, not times. EXPLAIN takes no {@code ?}: the parameters are
 * bound as the product binds them, and Connector/J, which prepares on the client by default, writes them into the
 * statement as literals (a server-side prepared EXPLAIN is planned with the same values).
 */
class MariaDbMarkListsTest extends MarkListsContract {

    private static final Pattern ACCESS = Pattern.compile("\"access_type\": \"(\\w+)\"");
    private static final Pattern KEY = Pattern.compile("\"key\": \"(\\w+)\"");
    private static final Pattern KEY_PARTS = Pattern.compile("\"used_key_parts\": \\[([^]]*)]");

    private static String url;

    @BeforeAll
    static void createDatabase() throws Exception {
        url = LiquibaseSchema.freshMariaDb("mark_lists");
    }

    @Override
    protected Connection connect() throws SQLException {
        return LiquibaseSchema.mariaDb().connect(url);
    }

    @Test
    void everyPageQueryReadsAnIndexInOrderFromItsCursorWithoutSorting() throws SQLException {
        try (Connection connection = connect(); Statement statement = connection.createStatement()) {
            // the marks of the PostgreSQL plan test: 200,000 of four projections in 20 tenants, 5% failing
            statement.execute("""
                    INSERT INTO projection_pending (projection, tenant_id, entity_id, generation, available_at,
                        first_marked_at, attempts, last_error)
                    SELECT CONCAT('p', seq % 4), CONCAT('t', seq % 20), LPAD(seq, 7, '0'), 'g',
                           DATE_ADD(TIMESTAMP '2030-01-01 10:00:00', INTERVAL seq % 5000 SECOND),
                           TIMESTAMP '2030-01-01 10:00:00',
                           CASE WHEN seq % 20 = 7 THEN 3 ELSE 0 END, CASE WHEN seq % 20 = 7 THEN 'boom' END
                      FROM seq_1_to_200000""");
            statement.execute("ANALYZE TABLE projection_pending");

            // p1's tenants are t1, t5, …; p3's failing marks are all t7's
            List<MarkFilter> filters = new ArrayList<>();
            for (MarkFilter base : List.of(MarkFilter.pending("p1"), MarkFilter.failing("p3"))) {
                for (MarkState state : MarkState.values()) {
                    filters.add(base.withState(state));
                    filters.add(base.withState(state).withTenant(base.failingOnly() ? "t7" : "t5"));
                }
            }
            List<String> bad = new ArrayList<>();
            for (MarkFilter filter : filters) {
                for (boolean fromCursor : new boolean[] {false, true}) {
                    for (boolean forward : new boolean[] {true, false}) {
                        String plan = plan(connection, filter, fromCursor, forward);
                        String access = first(ACCESS, plan);
                        String parts = first(KEY_PARTS, plan);
                        // the list's own index, in its order: no scan, no sort
                        String index = filter.tenant() != null ? "projection_pending_tenant_due_idx"
                                : "projection_pending_due_idx";
                        boolean ordered = List.of("ref", "range").contains(access)
                                && index.equals(first(KEY, plan)) && !plan.contains("filesort");
                        // from a cursor, a range bounded by the whole sort key: it starts at the cursor
                        boolean seeks = !fromCursor || "range".equals(access) && parts != null
                                && parts.contains("\"entity_id\"");
                        if (!ordered || !seeks) {
                            bad.add("%s, cursor %s, forward %s: %s of %s by %s%n%s".formatted(filter, fromCursor,
                                    forward, access, first(KEY, plan), parts, plan));
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
                    SELECT CONCAT('p', seq % 4), CONCAT('t', seq % 20), LPAD(seq, 7, '0'), 'g',
                           TIMESTAMP '2030-01-01 10:00:00', TIMESTAMP '2030-01-01 10:00:00', 0
                      FROM seq_1_to_100000""");
            statement.execute("ANALYZE TABLE projection_pending");
            String plan;
            try (PreparedStatement explain = connection.prepareStatement(
                    "EXPLAIN FORMAT=JSON " + lists.findByIdSql(Dialect.MARIADB, 100))) {
                explain.setString(1, "0004242");
                plan = explainOf(explain);
            }
            assertThat(first(KEY, plan)).isEqualTo("projection_pending_entity_idx");
            assertThat(first(ACCESS, plan)).isEqualTo("ref");
        }
    }

    @Test
    void everyAuditFilterReadsItsOwnIndex() throws SQLException {
        try (Connection connection = connect(); Statement statement = connection.createStatement()) {
            // the actions of the PostgreSQL plan test: 200,000 over 200,000 minutes, one rare user and one rare action
            statement.execute("""
                    INSERT INTO projection_audit (at, user_name, action, projection, tenant_id, entity_id)
                    SELECT DATE_ADD(TIMESTAMP '2030-01-01 10:00:00', INTERVAL seq MINUTE),
                           CASE WHEN seq % 50000 = 0 THEN 'rare' ELSE CONCAT('u', seq % 50) END,
                           CASE WHEN seq % 50000 = 1 THEN 'purge' ELSE CONCAT('a', seq % 10) END,
                           CONCAT('p', seq % 100), '', seq
                      FROM seq_1_to_200000""");
            statement.execute("ANALYZE TABLE projection_audit");
            Instant from = T0.plus(Duration.ofMinutes(1000));
            java.util.Map<AuditFilter, String> index = new java.util.LinkedHashMap<>();
            index.put(new AuditFilter("rare", null, null, null, null), "projection_audit_user_idx");
            index.put(new AuditFilter(null, "purge", null, null, null), "projection_audit_action_idx");
            index.put(new AuditFilter(null, null, "p7", null, null), "projection_audit_projection_idx");
            index.put(new AuditFilter(null, null, null, from, from.plus(Duration.ofHours(2))), "projection_audit_at_idx");
            List<String> bad = new ArrayList<>();
            for (java.util.Map.Entry<AuditFilter, String> expected : index.entrySet()) {
                AuditLog audit = new AuditLog();
                try (PreparedStatement explain = connection.prepareStatement("EXPLAIN FORMAT=JSON "
                        + audit.pageSql(Dialect.MARIADB, expected.getKey(), false, 51))) {
                    AuditLog.bind(explain, Dialect.MARIADB, expected.getKey(), null);
                    String plan = explainOf(explain);
                    if (!expected.getValue().equals(first(KEY, plan)) || "ALL".equals(first(ACCESS, plan))) {
                        bad.add("%s: %s of %s%n%s".formatted(expected.getKey(), first(ACCESS, plan), first(KEY, plan),
                                plan));
                    }
                }
            }
            assertThat(bad).isEmpty();
        }
    }

    private String plan(Connection connection, MarkFilter filter, boolean fromCursor, boolean forward)
            throws SQLException {
        String sql = lists.pageSql(Dialect.MARIADB, filter, forward, fromCursor, 51);
        try (PreparedStatement explain = connection.prepareStatement("EXPLAIN FORMAT=JSON " + sql)) {
            // a cursor halfway through the due times, and a now that leaves every list something on both sides
            // of it: MariaDB plans no table for a condition it finds impossible
            Instant now = T0.plusSeconds(filter.state() == MarkState.BACKING_OFF ? 1500 : 2500);
            MarkLists.bindPage(explain, Dialect.MARIADB, filter, now,
                    fromCursor ? new PageCursor(T0.plusSeconds(2000), "t3", "0100000") : null);
            return explainOf(explain);
        }
    }

    private static String explainOf(PreparedStatement explain) throws SQLException {
        StringBuilder plan = new StringBuilder();
        try (ResultSet rows = explain.executeQuery()) {
            while (rows.next()) {
                plan.append(rows.getString(1)).append('\n');
            }
        }
        return plan.toString();
    }

    private static String first(Pattern pattern, String plan) {
        Matcher matcher = pattern.matcher(plan);
        return matcher.find() ? matcher.group(1) : null;
    }
}
