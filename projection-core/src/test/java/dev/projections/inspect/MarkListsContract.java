package dev.projections.inspect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.projections.store.Dialect;
import dev.projections.store.MarkActions;
import dev.projections.store.Tables;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The console's lists on every supported database: keyset pages forward and back cover every mark once, in
 * due order; filters by tenant, state and failing; capped counts; per-tenant counts; orphaned marks and their
 * purge; the audit log. Rows are written with plain JDBC, instants are a base plus offsets.
 */
abstract class MarkListsContract {

    static final Instant T0 = Instant.parse("2030-01-01T10:00:00Z");
    static final String ORDERS = "order-search";
    static final String STATS = "customer-stats";
    static final Duration WINDOW = Duration.ofSeconds(90);

    protected abstract Connection connect() throws SQLException;

    final MarkLists lists = new MarkLists();

    /** The operator's actions on {@code connection}'s database (the purge of orphaned marks is one). */
    static MarkActions actions(Connection connection) throws SQLException {
        return Tables.forProduct(connection.getMetaData().getDatabaseProductName()).actions();
    }

    @BeforeEach
    void emptyTables() throws SQLException {
        try (Connection connection = connect(); Statement statement = connection.createStatement()) {
            statement.execute("DELETE FROM projection_pending");
            statement.execute("DELETE FROM projection_instance");
            statement.execute("DELETE FROM projection_audit");
        }
    }

    /** Inserts a mark due at T0 + {@code dueSeconds}, failing {@code attempts} times, leased until {@code lease}. */
    static void insert(Connection connection, String projection, String tenant, String id, long dueSeconds,
                       int attempts, Instant leasedUntil) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement("""
                INSERT INTO projection_pending (projection, tenant_id, entity_id, generation, available_at,
                    first_marked_at, attempts, claimed_until, claim_token, last_error)
                VALUES (?, ?, ?, 'g', ?, ?, ?, ?, ?, ?)""")) {
            insert.setString(1, projection);
            insert.setString(2, tenant);
            insert.setString(3, id);
            Dialect dialect = Dialect.of(connection);
            insert.setObject(4, dialect.timestamp(T0.plusSeconds(dueSeconds)));
            insert.setObject(5, dialect.timestamp(T0));
            insert.setInt(6, attempts);
            insert.setObject(7, dialect.timestamp(leasedUntil));
            insert.setString(8, leasedUntil == null ? null : "token");
            insert.setString(9, attempts > 0 ? "boom " + id : null);
            insert.executeUpdate();
        }
    }

    /** 2,500 marks: ids 0000–2499, tenant a or b alternating, several sharing each due second. */
    private List<String> manyMarks(Connection connection) throws SQLException {
        connection.setAutoCommit(false);
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < 2500; i++) {
            String id = "%04d".formatted(i);
            String tenant = i % 2 == 0 ? "a" : "b";
            insert(connection, ORDERS, tenant, id, (2500 - i) / 3, 0, null);
            keys.add(tenant + "/" + id);
        }
        insert(connection, STATS, "a", "other-projection", 0, 0, null);
        connection.commit();
        connection.setAutoCommit(true);
        return keys;
    }

    private static List<String> keys(MarkPage page) {
        return page.rows().stream().map(row -> row.tenant() + "/" + row.id()).toList();
    }

    @Test
    void pagingForwardVisitsEveryMarkOnceInDueOrderAndBackwardRetracesIt() throws SQLException {
        try (Connection connection = connect()) {
            List<String> all = manyMarks(connection);
            MarkFilter filter = MarkFilter.pending(ORDERS);
            List<MarkPage> pages = new ArrayList<>();
            MarkPage page = lists.first(connection, filter, T0, 100);
            assertThat(page.hasPrevious()).isFalse();
            pages.add(page);
            while (page.hasNext()) {
                page = lists.page(connection, filter, T0, page.last(), true, 100);
                pages.add(page);
            }
            List<String> seen = pages.stream().flatMap(p -> keys(p).stream()).toList();
            assertThat(seen).hasSize(2500).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(all);
            List<Instant> due = pages.stream().flatMap(p -> p.rows().stream()).map(MarkRow::availableAt).toList();
            assertThat(due).isSorted();
            assertThat(pages).hasSize(25);

            // back from the last page: each earlier page exactly as it was seen going forward
            MarkPage back = pages.get(24);
            for (int i = 23; i >= 0; i--) {
                back = lists.page(connection, filter, T0, back.first(), false, 100);
                assertThat(keys(back)).isEqualTo(keys(pages.get(i)));
            }
            assertThat(back.hasPrevious()).isFalse();
        }
    }

    @Test
    void aTenantFilterPagesThroughThatTenantOnly() throws SQLException {
        try (Connection connection = connect()) {
            manyMarks(connection);
            MarkFilter filter = MarkFilter.pending(ORDERS).withTenant("b");
            List<String> seen = new ArrayList<>();
            MarkPage page = lists.first(connection, filter, T0, 300);
            seen.addAll(keys(page));
            while (page.hasNext()) {
                page = lists.page(connection, filter, T0, page.last(), true, 300);
                seen.addAll(keys(page));
            }
            assertThat(seen).hasSize(1250).doesNotHaveDuplicates().allMatch(key -> key.startsWith("b/"));
            MarkPage previous = lists.page(connection, filter, T0, page.first(), false, 300);
            assertThat(previous.rows()).hasSize(300).allMatch(row -> row.tenant().equals("b"));
        }
    }

    @Test
    void stateFiltersSeparateDueClaimedAndBackingOffMarks() throws SQLException {
        try (Connection connection = connect()) {
            insert(connection, ORDERS, "", "due", -10, 0, null);
            insert(connection, ORDERS, "", "lease-lapsed", -5, 0, T0.minusSeconds(1));
            insert(connection, ORDERS, "", "claimed", -5, 0, T0.plusSeconds(60));
            insert(connection, ORDERS, "", "backing-off", 30, 2, null);
            insert(connection, ORDERS, "", "failed-due-again", -1, 1, null);
            assertThat(ids(connection, MarkFilter.pending(ORDERS).withState(MarkState.DUE)))
                    .containsExactly("due", "lease-lapsed", "failed-due-again");
            assertThat(ids(connection, MarkFilter.pending(ORDERS).withState(MarkState.CLAIMED)))
                    .containsExactly("claimed");
            assertThat(ids(connection, MarkFilter.pending(ORDERS).withState(MarkState.BACKING_OFF)))
                    .containsExactly("backing-off");
            assertThat(ids(connection, MarkFilter.failing(ORDERS)))
                    .containsExactly("failed-due-again", "backing-off");
            MarkRow failing = lists.first(connection, MarkFilter.failing(ORDERS), T0, 10).rows().get(1);
            assertThat(failing.attempts()).isEqualTo(2);
            assertThat(failing.lastError()).isEqualTo("boom backing-off");
            assertThat(failing.availableAt()).isEqualTo(T0.plusSeconds(30));
        }
    }

    private List<String> ids(Connection connection, MarkFilter filter) throws SQLException {
        return lists.first(connection, filter, T0, 50).rows().stream().map(MarkRow::id).toList();
    }

    @Test
    void countsStopAtTheCap() throws SQLException {
        try (Connection connection = connect()) {
            manyMarks(connection);
            assertThat(lists.count(connection, MarkFilter.pending(ORDERS), T0, 10_000).display()).isEqualTo("2,500");
            CappedCount capped = lists.count(connection, MarkFilter.pending(ORDERS), T0, 1_000);
            assertThat(capped.capped()).isTrue();
            assertThat(capped.display()).isEqualTo("1,000+");
            assertThat(lists.count(connection, MarkFilter.pending(ORDERS).withTenant("a"), T0, 10_000).value())
                    .isEqualTo(1250);
        }
    }

    @Test
    void perTenantCountsSplitPendingAndFailing() throws SQLException {
        try (Connection connection = connect()) {
            insert(connection, ORDERS, "a", "1", 0, 0, null);
            insert(connection, ORDERS, "a", "2", 0, 3, null);
            insert(connection, ORDERS, "b", "1", 0, 0, null);
            insert(connection, STATS, "", "x", 0, 1, null);
            assertThat(lists.byTenant(connection, 100)).containsExactly(
                    new TenantCounts(STATS, "", 1, 1),
                    new TenantCounts(ORDERS, "a", 2, 1),
                    new TenantCounts(ORDERS, "b", 1, 0));
        }
    }

    @Test
    void onlyMarksOfProjectionsNoInstanceReportedRecentlyArePurged() throws SQLException {
        try (Connection connection = connect()) {
            insert(connection, ORDERS, "", "1", 0, 0, null);
            insert(connection, "retired", "", "1", 0, 0, null);
            insert(connection, "retired", "t", "2", 0, 2, null);
            insert(connection, "retired", "t", "3-leased", 0, 0, T0.plusSeconds(30));
            heartbeat(connection, "node-1", ORDERS, T0.minusSeconds(10));
            heartbeat(connection, "node-2", "retired", T0.minus(WINDOW).minusSeconds(1));

            assertThat(lists.orphaned(connection, T0, WINDOW)).containsExactly(new OrphanedMarks("retired", 3));
            assertThat(actions(connection).purgeOrphaned(connection, ORDERS, T0, WINDOW)).isZero();
            assertThat(actions(connection).purgeOrphaned(connection, "retired", T0, WINDOW)).as("a leased mark stays").isEqualTo(2);
            assertThat(lists.orphaned(connection, T0, WINDOW)).containsExactly(new OrphanedMarks("retired", 1));
            assertThat(actions(connection).purgeOrphaned(connection, "retired", T0.plusSeconds(31), WINDOW)).isEqualTo(1);
            assertThat(lists.orphaned(connection, T0.plusSeconds(31), WINDOW)).isEmpty();
            assertThat(lists.count(connection, MarkFilter.pending(ORDERS), T0, 10).value()).isEqualTo(1);
        }
    }

    private static void heartbeat(Connection connection, String instance, String projection, Instant at)
            throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement(
                "INSERT INTO projection_instance (instance_id, projection, last_seen) VALUES (?, ?, ?)")) {
            insert.setString(1, instance);
            insert.setString(2, projection);
            insert.setObject(3, Dialect.of(connection).timestamp(at));
            insert.executeUpdate();
        }
    }

    @Test
    void theAuditLogListsActionsNewestFirstAndPagesById() throws SQLException {
        AuditLog audit = new AuditLog();
        try (Connection connection = connect()) {
            for (int i = 0; i < 5; i++) {
                audit.record(connection, AuditEntry.of(T0.plusSeconds(i), "admin", "retry", ORDERS, "a", "id-" + i,
                        "x".repeat(2000)));
            }
            List<AuditEntry> newest = audit.latest(connection, null, 3);
            assertThat(newest).extracting(AuditEntry::entityId).containsExactly("id-4", "id-3", "id-2");
            assertThat(newest.get(0).user()).isEqualTo("admin");
            assertThat(newest.get(0).at()).isEqualTo(T0.plusSeconds(4));
            assertThat(newest.get(0).detail()).hasSize(AuditLog.MAX_DETAIL);
            assertThat(audit.latest(connection, newest.get(2).id(), 3)).extracting(AuditEntry::entityId)
                    .containsExactly("id-1", "id-0");
        }
    }

    @Test
    void theAuditLogIsFilteredByUserActionProjectionAndTimeRangeAndPagesByIdWithinTheFilter() throws SQLException {
        AuditLog audit = new AuditLog();
        try (Connection connection = connect()) {
            for (int i = 0; i < 12; i++) {
                audit.record(connection, AuditEntry.of(T0.plusSeconds(i * 60), i % 3 == 0 ? "alice" : "bob",
                        i % 2 == 0 ? "retry" : "pause", i % 4 == 0 ? STATS : ORDERS, "", "id-" + i, null));
            }
            AuditFilter alicesRetries = new AuditFilter("alice", "retry", null, null, null);
            assertThat(audit.page(connection, alicesRetries, null, 10)).extracting(AuditEntry::entityId)
                    .containsExactly("id-6", "id-0");
            assertThat(audit.page(connection, new AuditFilter(null, null, STATS, null, null), null, 10))
                    .extracting(AuditEntry::entityId).containsExactly("id-8", "id-4", "id-0");

            // from inclusive, to exclusive: minutes 3, 4 and 5
            AuditFilter range = new AuditFilter(null, null, null, T0.plusSeconds(180), T0.plusSeconds(360));
            List<AuditEntry> first = audit.page(connection, range, null, 2);
            assertThat(first).extracting(AuditEntry::entityId).containsExactly("id-5", "id-4");
            assertThat(audit.page(connection, range, first.get(1).id(), 2)).extracting(AuditEntry::entityId)
                    .containsExactly("id-3");
            assertThat(audit.page(connection, new AuditFilter("nobody", null, null, null, null), null, 10)).isEmpty();
        }
    }

    @Test
    void anAuditRangeThatEndsBeforeItStartsIsRefusedNamingBothEnds() {
        assertThatThrownBy(() -> new AuditFilter(null, null, null, T0, T0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("an audit time range must end after it starts, was from " + T0 + " to " + T0);
    }

    private static void failWith(Connection connection, String id, String error) throws SQLException {
        try (PreparedStatement update = connection.prepareStatement(
                "UPDATE projection_pending SET last_error = ? WHERE entity_id = ?")) {
            update.setString(1, error);
            update.setString(2, id);
            assertThat(update.executeUpdate()).isEqualTo(1);
        }
    }

    @Test
    void topErrorsGroupFailuresByTheirHeadAndTheListOfAHeadShowsExactlyItsMarks() throws SQLException {
        try (Connection connection = connect()) {
            for (int i = 1; i <= 5; i++) {
                insert(connection, ORDERS, "a", "k" + i, i, 2, null);
                failWith(connection, "k" + i, "java.lang.IllegalStateException: gated failure of k" + i + "\n\tat x");
            }
            insert(connection, ORDERS, "b", "x1", 1, 1, null);
            failWith(connection, "x1", "Connection refused: search backend 10.0.0.1:9200");
            insert(connection, ORDERS, "b", "x2", 2, 1, null);
            failWith(connection, "x2", "Connection refused: search backend 10.0.0.2:9200");
            // LIKE's wildcards in an error are taken literally by the prefix filter
            insert(connection, ORDERS, "a", "w1", 3, 1, null);
            failWith(connection, "w1", "bad_value% in column");
            insert(connection, ORDERS, "a", "w2", 4, 1, null);
            failWith(connection, "w2", "badXvalueY in column");
            // heads that start with another head count in the shorter one: its list shows them too
            insert(connection, ORDERS, "b", "lock1", 3, 1, null);
            failWith(connection, "lock1", "Lock wait timeout exceeded");
            insert(connection, ORDERS, "b", "lock2", 4, 1, null);
            failWith(connection, "lock2", "Lock wait timeout exceeded; try restarting transaction");
            insert(connection, ORDERS, "a", "fine", 5, 0, null);
            insert(connection, STATS, "a", "elsewhere", 5, 1, null);
            failWith(connection, "elsewhere", "java.lang.IllegalStateException: gated failure of k9");

            ErrorGroups top = lists.topErrors(connection, MarkFilter.pending(ORDERS), T0, 10, 1000);
            assertThat(top.groups()).containsExactly(
                    new ErrorGroup("java.lang.IllegalStateException: gated failure of k", 5),
                    new ErrorGroup("Connection refused: search backend ", 2),
                    new ErrorGroup("Lock wait timeout exceeded", 2),
                    new ErrorGroup("badXvalueY in column", 1), // ties by head
                    new ErrorGroup("bad_value% in column", 1));
            assertThat(top.read()).isEqualTo(11);
            assertThat(lists.count(connection, MarkFilter.failing(ORDERS).withErrorStartingWith(
                    "Lock wait timeout exceeded"), T0, 100).value()).as("what the group's link lists").isEqualTo(2);
            assertThat(top.complete()).isTrue();

            MarkFilter gated = MarkFilter.failing(ORDERS)
                    .withErrorStartingWith("java.lang.IllegalStateException: gated failure of k");
            assertThat(keys(lists.first(connection, gated, T0, 50)))
                    .containsExactlyInAnyOrder("a/k1", "a/k2", "a/k3", "a/k4", "a/k5");
            assertThat(lists.count(connection, gated, T0, 100).value()).isEqualTo(5);
            assertThat(keys(lists.first(connection, MarkFilter.failing(ORDERS).withErrorStartingWith("bad_value%"),
                    T0, 50))).containsExactly("a/w1");
            assertThat(keys(lists.first(connection, gated.withTenant("b"), T0, 50))).isEmpty();

            ErrorGroups firstThree = lists.topErrors(connection, MarkFilter.pending(ORDERS), T0, 10, 3);
            assertThat(firstThree.read()).isEqualTo(3);
            assertThat(firstThree.complete()).as("more failing marks than were read").isFalse();
            assertThat(lists.topErrors(connection, MarkFilter.pending(ORDERS).withTenant("b"), T0, 1, 1000).groups())
                    .containsExactly(new ErrorGroup("Connection refused: search backend ", 2));
        }
    }

    @Test
    void findingAnIdListsItsMarksInEveryProjectionAndTenantAndNothingElse() throws SQLException {
        try (Connection connection = connect()) {
            insert(connection, ORDERS, "b", "42", 1, 0, null);
            insert(connection, ORDERS, "a", "42", 2, 3, null);
            insert(connection, STATS, "", "42", 3, 0, null);
            insert(connection, ORDERS, "a", "420", 4, 0, null);
            insert(connection, ORDERS, "a", "4", 5, 0, null);

            assertThat(lists.findById(connection, "42", 100))
                    .extracting(row -> row.projection() + ":" + row.tenant() + "/" + row.id() + ":" + row.attempts())
                    .containsExactly(STATS + ":/42:0", ORDERS + ":a/42:3", ORDERS + ":b/42:0");
            assertThat(lists.findById(connection, "nothing", 100)).isEmpty();
            assertThatThrownBy(() -> lists.findById(connection, " ", 100)).hasMessageContaining("must not be blank");
        }
    }

    @Test
    void aListNeedsAProjectionAndASensiblePageSize() throws SQLException {
        assertThatThrownBy(() -> MarkFilter.pending(" ")).hasMessageContaining("needs a projection");
        try (Connection connection = connect()) {
            assertThatThrownBy(() -> lists.first(connection, MarkFilter.pending(ORDERS), T0, 0))
                    .hasMessageContaining("was 0");
            assertThatThrownBy(() -> lists.page(connection, MarkFilter.pending(ORDERS), T0, null, false, 10))
                    .hasMessageContaining("needs the cursor");
        }
    }
}
