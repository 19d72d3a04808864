package dev.projections.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.inspect.PendingCounts;
import dev.projections.testsupport.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The queue queries of the engine on PostgreSQL and their plans, with 1,000,000 pending marks over three
 * projections (a big rebuild beside live marks): the claim reads each projection's marks in the claim index's
 * order under a LIMIT and sorts only those few candidates, never the whole due set; the due check and the
 * longest-due read are index reads too. Plans, not times.
 */
class PostgresClaimPlanTest {

    private static final String SCHEMA = "claim_plan";
    private static final Instant NOW = Instant.parse("2030-01-01T12:00:00Z");
    private static final List<String> PROJECTIONS = List.of("p0", "p1", "p2");
    private static final PostgresPendingQueue QUEUE = new PostgresPendingQueue("plan-test");
    private static final PendingChecks CHECKS = Tables.forProduct("PostgreSQL", "plan-test").checks();
    private static String url;

    @BeforeAll
    static void millionMarks() throws Exception {
        url = LiquibaseSchema.freshPostgresSchema(SCHEMA);
        try (Connection connection = connect(); Statement statement = connection.createStatement()) {
            // every tenth mark live, the rest a rebuild's; due one millisecond apart, the highest ids first; 1% leased
            statement.execute("""
                    INSERT INTO projection_pending (projection, tenant_id, entity_id, generation, priority,
                        available_at, first_marked_at, claim_token, claimed_until)
                    SELECT 'p' || (i % 3), '', lpad(i::text, 8, '0'), 'g', CASE WHEN i % 10 = 0 THEN 0 ELSE 1 END,
                           TIMESTAMPTZ '2030-01-01 10:00:00+00' + (1000000 - i) * INTERVAL '1 millisecond',
                           TIMESTAMPTZ '2030-01-01 10:00:00+00',
                           CASE WHEN i % 100 = 1 THEN 't' END,
                           CASE WHEN i % 100 = 1 THEN TIMESTAMPTZ '2030-01-01 12:01:00+00' END
                      FROM generate_series(1, 1000000) AS i""");
            statement.execute("ANALYZE projection_pending");
        }
    }

    @AfterAll
    static void dropTheMillion() throws Exception {
        try (Connection connection = TestDatabase.get().connect(); Statement statement = connection.createStatement()) {
            statement.execute("DROP SCHEMA IF EXISTS " + SCHEMA + " CASCADE");
        }
    }

    /** The claim is one statement: the candidates as below, then their claim set by row address (a TID scan). */
    @Test
    void aClaimOverSeveralProjectionsReadsEachInIndexOrderUnderALimitAndSortsOnlyItsCandidates() throws Exception {
        try (Connection connection = connect()) {
            String plan = claimDuePlan(connection, PROJECTIONS.toArray());

            assertThat(plan).as(plan).contains("Index Scan using projection_pending_claim_idx")
                    .contains("Tid Scan on projection_pending q")
                    .doesNotContain("Seq Scan on projection_pending").doesNotContain("Bitmap");
            String perProjection = plan.substring(plan.indexOf("Nested Loop"));
            assertThat(perProjection).as("no sort below the per-projection reads:%n%s", plan).doesNotContain("Sort");
            assertThat(perProjection).contains("Limit").contains("LockRows");
        }
    }

    /**
     * A claim's transaction waits for a lock only briefly (docs/pitfalls.md #92): the statement sets lock_timeout in a
     * one-time filter over its join, which runs before the join reads the candidates, whose rows are locked (LockRows)
     * when the join first reads them.
     */
    @Test
    void theClaimSetsItsLockTimeoutBeforeItLocksAnyCandidate() throws Exception {
        try (Connection connection = connect()) {
            String plan = claimDuePlan(connection, new Object[] {"p1"});

            assertLockTimeoutSetBeforeAnyCandidateIsLocked(plan);
            String keys = plan(connection, "EXPLAIN " + QUEUE.claimStatement(PostgresClaimStatements.CLAIM_KEYS),
                    select -> bindKeys(select, new String[] {"p1", "p1"}, new String[] {"00000001", "00000002"},
                            new String[] {"p1"}));
            assertLockTimeoutSetBeforeAnyCandidateIsLocked(keys);
        }
    }

    private static void assertLockTimeoutSetBeforeAnyCandidateIsLocked(String plan) {
        int filter = plan.indexOf("One-Time Filter");
        int candidates = plan.indexOf("CTE Scan on candidate");
        assertThat(filter).as(plan).isPositive();
        assertThat(candidates).as("the candidates are read under the filter:%n%s", plan).isGreaterThan(filter);
        assertThat(plan.substring(plan.indexOf("CTE candidate"), filter)).as(plan).contains("LockRows");
    }

    /** A drainer's claim of its handed keys finds each by an index on the key, and claims them by address. */
    /**
     * A drainer's turn claims one projection's due marks (docs/design.md D45): the same statement over one name reads
     * that projection's part of the claim index under the limit, whatever the other projections hold.
     */
    @Test
    void aTurnsClaimOfOneProjectionReadsOnlyItsPartOfTheClaimIndexUnderALimit() throws Exception {
        try (Connection connection = connect()) {
            for (int fromPriority : new int[] {PendingQueue.LIVE, PendingQueue.REBUILD}) {
                assertReadsOnlyItsPartUnderALimit(claimDuePlan(connection, new Object[] {"p1"}, fromPriority));
            }
        }
    }

    private static void assertReadsOnlyItsPartUnderALimit(String plan) {
        assertThat(plan).as(plan).contains("Index Scan using projection_pending_claim_idx")
                .contains("Tid Scan on projection_pending q")
                .doesNotContain("Seq Scan on projection_pending").doesNotContain("Bitmap");
        String read = plan.substring(plan.indexOf("Index Scan using projection_pending_claim_idx"));
        assertThat(read).as("the projection and the priority are the index's condition, not a filter:%n%s", plan)
                .containsPattern("Index Cond: \\(+projection\\)?(::text)? = u\\.projection")
                .containsPattern("Index Cond: .*priority >= ");
        String perProjection = plan.substring(plan.indexOf("Nested Loop"));
        assertThat(perProjection).as("no sort below the read:%n%s", plan).doesNotContain("Sort");
        assertThat(perProjection).contains("Limit").contains("LockRows");
    }

    /**
     * A batch's due claim in the refresh's transaction (docs/design.md D59) locks its candidates and writes nothing: it
     * reads the projection's part of the claim index under the limit, and sets its lock timeout in a one-time filter
     * on the projections, before the per-projection read locks any row.
     */
    @Test
    void aBatchsClaimInItsRefreshLocksItsCandidatesUnderALimitWritesNothingAndBoundsItsLockWaitsFirst()
            throws Exception {
        try (Connection connection = connect()) {
            String plan = plan(connection, "EXPLAIN " + PostgresClaimStatements.LOCK_DUE, select -> {
                select.setArray(1, connection.createArrayOf("text", new Object[] {"p1"}));
                select.setInt(2, PendingQueue.REBUILD);
                select.setObject(3, NOW.atOffset(ZoneOffset.UTC));
                select.setObject(4, NOW.atOffset(ZoneOffset.UTC));
                select.setInt(5, 100);
                select.setInt(6, 100);
            });

            assertThat(plan).as(plan).contains("Index Scan using projection_pending_claim_idx")
                    .doesNotContain("Update on").doesNotContain("Seq Scan on projection_pending")
                    .doesNotContain("Bitmap");
            assertThat(plan).as("the projection and the priority are the index's condition:%n%s", plan)
                    .containsPattern("Index Cond: \\(+projection\\)?(::text)? = u\\.projection")
                    .containsPattern("Index Cond: .*priority >= ");
            int filter = plan.indexOf("One-Time Filter");
            int read = plan.indexOf("Index Scan using projection_pending_claim_idx");
            assertThat(filter).as("the lock timeout set once, on the projections' scan:%n%s", plan).isPositive()
                    .isLessThan(plan.indexOf("Function Scan on unnest u"));
            String perProjection = plan.substring(plan.indexOf("Nested Loop"));
            assertThat(perProjection).as("no sort below the read:%n%s", plan).doesNotContain("Sort");
            assertThat(perProjection).contains("Limit").contains("LockRows");
            assertThat(read).isGreaterThan(plan.indexOf("LockRows"));
        }
    }

    @Test
    void aClaimOfHandedKeysFindsEachByItsKeyAndClaimsByAddress() throws Exception {
        int keys = 20;
        try (Connection connection = connect()) {
            String[] projections = new String[keys];
            String[] ids = new String[keys];
            for (int k = 0; k < keys; k++) {
                projections[k] = "p" + (k % 3);
                ids[k] = String.format("%08d", 3000 + k);
            }
            // the plan for these values, and the generic plan the statement gets once prepared on the server (one
            // text for every batch size, docs/pitfalls.md #97): both find each key by a key index
            String custom = plan(connection, "EXPLAIN " + QUEUE.claimStatement(PostgresClaimStatements.CLAIM_KEYS),
                    select -> bindKeys(select, projections, ids, PROJECTIONS.toArray(String[]::new)));
            String generic = genericPlan(connection, "EXPLAIN", QUEUE.claimStatement(PostgresClaimStatements.CLAIM_KEYS),
                    "'token'", "'2030-01-01 12:02:00+00'", "'node'", arrayLiteral(projections),
                    arrayLiteral(Collections.nCopies(keys, "").toArray(String[]::new)), arrayLiteral(ids),
                    arrayLiteral(PROJECTIONS.toArray(String[]::new)), "'2030-01-01 12:00:00+00'",
                    "'2030-01-01 12:00:00+00'");
            assertThat(generic).as("a plan with its parameters unknown:%n%s", generic).containsPattern("\\$\\d");
            for (String plan : List.of(custom, generic)) {
                assertThat(plan).as(plan).containsPattern("Index Scan (using|on) projection_pending_(pk|entity_idx)")
                        .contains("Tid Scan on projection_pending q")
                        .doesNotContain("Seq Scan on projection_pending").doesNotContain("tenant_due");
            }
        }
    }

    /**
     * A lone key's take in its refresh's transaction (docs/design.md D61) finds each key by a key index, deletes by the
     * address it locked, and bounds its lock waits before it locks any candidate — in the plan for these values and in
     * the generic plan the statement gets once prepared on the server.
     */
    @Test
    void aTakeOfLoneKeysInTheirRefreshFindsEachByItsKeyDeletesByAddressAndBoundsItsLockWaitsFirst() throws Exception {
        try (Connection connection = connect()) {
            String[] projections = {"p0", "p1"};
            String[] ids = {"00003000", "00003001"};
            String custom = plan(connection, "EXPLAIN " + PostgresClaimStatements.TAKE_KEYS, select -> {
                select.setArray(1, connection.createArrayOf("text", projections));
                select.setArray(2, connection.createArrayOf("text", new String[] {"", ""}));
                select.setArray(3, connection.createArrayOf("text", ids));
                select.setArray(4, connection.createArrayOf("text", PROJECTIONS.toArray()));
                select.setObject(5, NOW.atOffset(ZoneOffset.UTC));
                select.setObject(6, NOW.atOffset(ZoneOffset.UTC));
            });
            String generic = genericPlan(connection, "EXPLAIN", PostgresClaimStatements.TAKE_KEYS,
                    arrayLiteral(projections), arrayLiteral(new String[] {"", ""}), arrayLiteral(ids),
                    arrayLiteral(PROJECTIONS.toArray(String[]::new)), "'2030-01-01 12:00:00+00'",
                    "'2030-01-01 12:00:00+00'");
            assertThat(generic).as("a plan with its parameters unknown:%n%s", generic).containsPattern("\\$\\d");
            for (String plan : List.of(custom, generic)) {
                assertThat(plan).as(plan).contains("Delete on projection_pending q")
                        .containsPattern("Index Scan (using|on) projection_pending_(pk|entity_idx)")
                        .contains("Tid Scan on projection_pending q")
                        .doesNotContain("Seq Scan on projection_pending").doesNotContain("tenant_due");
                assertLockTimeoutSetBeforeAnyCandidateIsLocked(plan);
            }
        }
    }

    /**
     * One key's claim and take (a lone commit's) find the key by a key index, change it by the address they locked, and
     * bound their lock waits before they lock it — in the plan for these values and in the generic plan.
     */
    @Test
    void aClaimOrTakeOfOneKeyFindsItByItsKeyChangesItByAddressAndBoundsItsLockWaitsFirst() throws Exception {
        try (Connection connection = connect()) {
            for (String sql : List.of(PostgresClaimStatements.TAKE_ONE_KEY,
                    QUEUE.claimStatementInRefresh(PostgresClaimStatements.CLAIM_ONE_KEY))) {
                boolean take = sql.equals(PostgresClaimStatements.TAKE_ONE_KEY);
                int first = take ? 1 : 4; // a claim's own parameters first: token, lease end, holder
                String custom = plan(connection, "EXPLAIN " + sql, select -> {
                    if (!take) {
                        claimParameters(select);
                    }
                    bindOneKey(select, first);
                });
                List<String> literals = new java.util.ArrayList<>(take ? List.of()
                        : List.of("'token'", "'2030-01-01 12:02:00+00'", "'node'"));
                literals.addAll(List.of("'p1'", "''", "'00003001'", arrayLiteral(PROJECTIONS.toArray(String[]::new)),
                        "'2030-01-01 12:00:00+00'", "'2030-01-01 12:00:00+00'"));
                String generic = genericPlan(connection, "EXPLAIN", sql, literals.toArray(String[]::new));
                assertThat(generic).as("a plan with its parameters unknown:%n%s", generic).containsPattern("\\$\\d");
                for (String plan : List.of(custom, generic)) {
                    assertThat(plan).as(plan).contains(take ? "Delete on projection_pending q" : "Update on projection_pending q")
                            .containsPattern("Index Scan (using|on) projection_pending_(pk|entity_idx)")
                            .contains("Tid Scan on projection_pending q")
                            .doesNotContain("Seq Scan on projection_pending").doesNotContain("tenant_due");
                    assertLockTimeoutSetBeforeAnyCandidateIsLocked(plan);
                }
            }
        }
    }

    /**
     * One key's take is planned once per connection, where the take of keys as arrays was planned at every execution
     * for as long as the connection lived (docs/pitfalls.md #128): with one key in its arrays a custom plan always looked
     * cheaper than the generic plan, which assumes ten. Run as the driver runs them, prepared on the server from the
     * fifth execution on; PostgreSQL's own count of each statement's custom and generic plans tells.
     */
    @Test
    void oneKeysTakeKeepsItsGenericPlanWhereTheArraysOfOneKeyAreReplannedAtEveryExecution() throws Exception {
        assertThat(plansOfTwelveTakes(PostgresClaimStatements.TAKE_ONE_KEY, PostgresClaimPlanTest::bindOneKey))
                .as("generic plans, custom plans of one key's take").satisfies(plans -> {
                    assertThat(plans[0]).isGreaterThan(0);
                    assertThat(plans[1]).isLessThanOrEqualTo(5);
                });
        assertThat(plansOfTwelveTakes(PostgresClaimStatements.TAKE_KEYS, (select, first) -> {
            Connection connection = select.getConnection();
            select.setArray(1, connection.createArrayOf("text", new String[] {"p1"}));
            select.setArray(2, connection.createArrayOf("text", new String[] {""}));
            select.setArray(3, connection.createArrayOf("text", new String[] {"00003001"}));
            select.setArray(4, connection.createArrayOf("text", PROJECTIONS.toArray()));
            select.setObject(5, NOW.atOffset(ZoneOffset.UTC));
            select.setObject(6, NOW.atOffset(ZoneOffset.UTC));
        })).as("generic plans, custom plans of the arrays' take of one key").satisfies(plans -> {
            assertThat(plans[0]).isZero();
            assertThat(plans[1]).isGreaterThan(5);
        });
    }

    interface KeyBinding {
        void bind(PreparedStatement select, int first) throws SQLException;
    }

    /** One key's parameters from {@code first} on: p1's 00003001 (tenant ""), every projection, due now. */
    private static void bindOneKey(PreparedStatement select, int first) throws SQLException {
        select.setString(first, "p1");
        select.setString(first + 1, "");
        select.setString(first + 2, "00003001");
        select.setArray(first + 3, select.getConnection().createArrayOf("text", PROJECTIONS.toArray()));
        select.setObject(first + 4, NOW.atOffset(ZoneOffset.UTC));
        select.setObject(first + 5, NOW.atOffset(ZoneOffset.UTC));
    }

    /**
     * {@code take} run twelve times on one connection, in a transaction rolled back: PostgreSQL's generic and custom
     * plans of it since the driver prepared it on the server (at the fifth run).
     */
    private static long[] plansOfTwelveTakes(String take, KeyBinding binding) throws SQLException {
        try (Connection connection = connect()) {
            connection.setAutoCommit(false);
            try {
                try (PreparedStatement select = connection.prepareStatement(take)) {
                    for (int run = 0; run < 12; run++) {
                        binding.bind(select, 1);
                        select.executeQuery().close();
                    }
                }
                try (Statement statement = connection.createStatement();
                     ResultSet plans = statement.executeQuery("SELECT generic_plans, custom_plans"
                             + " FROM pg_prepared_statements WHERE NOT from_sql")) {
                    assertThat(plans.next()).as("the take prepared on the server").isTrue();
                    long[] counts = {plans.getLong(1), plans.getLong(2)};
                    assertThat(plans.next()).as("one statement prepared on the server").isFalse();
                    return counts;
                }
            } finally {
                connection.rollback();
            }
        }
    }

    /** {@code values} as a PostgreSQL text array literal. */
    static String arrayLiteral(String[] values) {
        StringBuilder literal = new StringBuilder("'{");
        for (int i = 0; i < values.length; i++) {
            literal.append(i == 0 ? "" : ",").append('"').append(values[i]).append('"');
        }
        return literal.append("}'").toString();
    }

    /**
     * A read-your-writes wait's check of its commit's keys (docs/contract.md §14) finds each by a key index (the primary
     * key, or the one led by the id), whatever the queue holds; it runs only while somebody waits, but then as often as every poll.
     */
    @Test
    void aWaitsCheckOfItsKeysFindsEachByAKeyIndex() throws Exception {
        int keys = 30;
        try (Connection connection = connect()) {
            String plan = plan(connection, "EXPLAIN " + CHECKS.stillPendingSql(keys), select -> {
                int i = 1;
                for (int k = 0; k < keys; k++) {
                    select.setString(i++, "p" + (k % 3));
                    select.setString(i++, "");
                    select.setString(i++, String.format("%08d", 5000 + k));
                }
                select.setString(i++, "this-instance");
                select.setObject(i++, NOW.atOffset(ZoneOffset.UTC));
                select.setString(i++, "this-instance");
                select.setObject(i, NOW.atOffset(ZoneOffset.UTC));
            });
            assertThat(plan).as(plan).containsPattern("Index (Only )?Scan (using|on) projection_pending_(pk|entity_idx)")
                    .doesNotContain("Seq Scan on projection_pending").doesNotContain("claim_idx");
        }
    }

    /** The test support's idle check (docs/contract.md §14) reads at most one row of the projection, by an index. */
    @Test
    void theIdleCheckReadsOneIndexedRowOfTheProjection() throws Exception {
        try (Connection connection = connect()) {
            for (String projection : List.of("p1", "not-deployed-here")) {
                String plan = plan(connection, "EXPLAIN " + CHECKS.anyMarkSql(), select -> select.setString(1, projection));
                assertThat(plan).as(plan).containsPattern("Index (Only )?Scan using projection_pending_pk")
                        .contains("Limit").doesNotContain("Seq Scan on projection_pending").doesNotContain("Sort");
            }
        }
    }

    /** A lone mark's ack by the address its claim returned: a TID scan. */
    @Test
    void aLoneAckDeletesByTheAddressItsClaimReturned() throws Exception {
        try (Connection connection = connect()) {
            String plan = plan(connection, "EXPLAIN " + PostgresAckStatements.DELETE_CLAIMED_ROW, select -> {
                select.setLong(1, tableOid(connection, "projection_pending"));
                select.setString(2, "(0,1)");
                select.setString(3, "g");
                select.setString(4, "token");
            });
            assertThat(plan).as(plan).contains("Tid Scan").doesNotContain("Seq Scan").doesNotContain("Index");
        }
    }

    @Test
    void theClaimTakesLiveMarksFirstThenTheOldestAcrossProjections() throws Exception {
        Tables store = Tables.forProduct("PostgreSQL");
        try (Connection connection = connect()) {
            connection.setAutoCommit(false);
            List<ClaimedMark> claimed = store.queue().claimDue(connection, PROJECTIONS, NOW,
                    java.time.Duration.ofMinutes(2),
                    "plan-test", 30);
            connection.rollback();
            // the 30 oldest live marks are ids 1000000, 999990, …, 999710, spread over the three projections
            List<String> oldestLive = java.util.stream.IntStream.range(0, 30)
                    .mapToObj(k -> String.format("%08d", 1000000 - 10 * k)).toList();
            assertThat(claimed).extracting(mark -> mark.key().entityId()).containsExactlyInAnyOrderElementsOf(oldestLive);
            assertThat(claimed).allSatisfy(mark -> assertThat(mark.priority()).isZero());
            assertThat(claimed.stream().map(mark -> mark.key().projection()).distinct()).hasSize(3);
        }
    }

    /*
     * With most marks due, reading the table until the first due row is as cheap as an index, and PostgreSQL may
     * do that; the check must not read the table when few are due (a backlog backing off, or leased), which is
     * when "any due?" has to look far: there the due index answers.
     */
    @Test
    void theDueCheckAndTheLongestDueReadAreIndexReads() throws Exception {
        Instant fewDue = Instant.parse("2030-01-01T10:00:00.500Z");
        String anyDue = Tables.forProduct("PostgreSQL").checks().anyDueSql(3);
        String longestDue = new PendingCounts(Dialect.POSTGRESQL).longestDueSql();
        try (Connection connection = connect()) {
            String due = plan(connection, "EXPLAIN " + anyDue, select -> {
                for (int i = 0; i < 3; i++) {
                    select.setString(i + 1, PROJECTIONS.get(i));
                }
                select.setObject(4, fewDue.atOffset(ZoneOffset.UTC));
                select.setObject(5, fewDue.atOffset(ZoneOffset.UTC));
            });
            assertThat(due).as(due).contains("Index").contains("Limit").doesNotContain("Seq Scan on projection_pending");

            String longest = plan(connection, "EXPLAIN " + longestDue, select -> {
                select.setString(1, "p1");
                select.setObject(2, NOW.atOffset(ZoneOffset.UTC));
            });
            assertThat(longest).as(longest).contains("Index").contains("Limit")
                    .doesNotContain("Seq Scan").doesNotContain("Sort");
        }
    }

    /**
     * A rebuild's remaining marks (its progress, and the check that finishes it) are read from the partial index
     * of rebuild marks, which live marks never write; 900,000 of the million are rebuild marks here.
     */
    @Test
    void aRebuildsRemainingMarksAreReadFromThePartialRebuildIndex() throws Exception {
        try (Connection connection = connect()) {
            for (String condition : new String[] {"attempts = 0", "attempts > 0"}) {
                String finish = plan(connection, "EXPLAIN " + RebuildMarks.rebuildMarkSql(Dialect.POSTGRESQL, condition),
                        select -> {
                            // the costly case: nothing of it left, so no early row ends a scan
                            select.setString(1, "finished-projection");
                            select.setString(2, "");
                            select.setString(3, "run");
                            select.setObject(4, NOW.atOffset(ZoneOffset.UTC));
                        });
                // the rebuild marks' partial index, or for failing ones the failing marks' partial index
                assertThat(finish).as(finish).containsPattern("Index (Only )?Scan using projection_pending_(rebuild|failing)_idx")
                        .doesNotContain("Seq Scan on projection_pending");
            }

            String progress = plan(connection, "EXPLAIN " + RebuildHistory.PROGRESS + " WHERE r.run_id = ?",
                    select -> select.setString(1, "run"));
            assertThat(progress).as(progress).contains("projection_pending_rebuild_idx")
                    .doesNotContain("Seq Scan on projection_pending");
        }
    }

    /** A batch's ack locks through the primary key and deletes by row address, whatever the size of the queue. */
    @Test
    void aBatchAckLocksAndDeletesByKey() throws Exception {
        try (Connection connection = connect()) {
            String[] projections = new String[100];
            String[] tenants = new String[100];
            String[] ids = new String[100];
            for (int i = 0; i < 100; i++) {
                projections[i] = "p" + (i % 3);
                tenants[i] = "";
                ids[i] = String.format("%08d", 1000 + i);
            }
            String lock = plan(connection, "EXPLAIN " + PostgresAckStatements.LOCK_IN_KEY_ORDER, select -> {
                select.setObject(1, NOW.atOffset(ZoneOffset.UTC));
                select.setObject(2, NOW.atOffset(ZoneOffset.UTC));
                select.setString(3, "this-instance");
                select.setArray(4, connection.createArrayOf("text", projections));
                select.setArray(5, connection.createArrayOf("text", tenants));
                select.setArray(6, connection.createArrayOf("text", ids));
                select.setArray(7, connection.createArrayOf("text", ids));
            });
            assertThat(lock).as(lock).contains("Conflict Arbiter Indexes: projection_pending_pk")
                    .doesNotContain("Seq Scan on projection_pending");

            String delete = plan(connection, "EXPLAIN " + PostgresAckStatements.DELETE_BY_ADDRESS,
                    select -> {
                        select.setLong(1, tableOid(connection, "projection_pending"));
                        select.setArray(2, connection.createArrayOf("text", new String[] {"(0,1)", "(0,2)"}));
                    });
            assertThat(delete).as(delete).contains("Tid Scan")
                    .doesNotContain("Seq Scan on projection_pending");
        }
    }

    static long tableOid(Connection connection, String table) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement("SELECT ?::regclass::oid::bigint")) {
            select.setString(1, table);
            try (ResultSet rows = select.executeQuery()) {
                rows.next();
                return rows.getLong(1);
            }
        }
    }

    /** The plan of the due claim of {@code projections}, 100 at most. */
    private static String claimDuePlan(Connection connection, Object[] projections) throws SQLException {
        return claimDuePlan(connection, projections, PendingQueue.LIVE);
    }

    /** The same, of marks from priority {@code fromPriority} on (a rebuild's share: rebuild marks only). */
    private static String claimDuePlan(Connection connection, Object[] projections, int fromPriority)
            throws SQLException {
        return plan(connection, "EXPLAIN " + QUEUE.claimStatement(PostgresClaimStatements.CLAIM_DUE), select -> {
            claimParameters(select);
            select.setArray(4, connection.createArrayOf("text", projections));
            select.setInt(5, fromPriority);
            select.setObject(6, NOW.atOffset(ZoneOffset.UTC));
            select.setObject(7, NOW.atOffset(ZoneOffset.UTC));
            select.setInt(8, 100);
            select.setInt(9, 100);
        });
    }

    /** The claim statement's own parameters: token, lease end, holder. */
    static void claimParameters(PreparedStatement select) throws SQLException {
        select.setString(1, "token");
        select.setObject(2, NOW.plusSeconds(120).atOffset(ZoneOffset.UTC));
        select.setString(3, "node");
    }

    /** The claim of handed keys' parameters: the keys as arrays (every tenant ""), the projections, the time twice. */
    private static void bindKeys(PreparedStatement select, String[] projectionOfKey, String[] ids, String[] projections)
            throws SQLException {
        claimParameters(select);
        Connection connection = select.getConnection();
        select.setArray(4, connection.createArrayOf("text", projectionOfKey));
        select.setArray(5, connection.createArrayOf("text", Collections.nCopies(ids.length, "").toArray()));
        select.setArray(6, connection.createArrayOf("text", ids));
        select.setArray(7, connection.createArrayOf("text", projections));
        select.setObject(8, NOW.atOffset(ZoneOffset.UTC));
        select.setObject(9, NOW.atOffset(ZoneOffset.UTC));
    }

    interface Binding {
        void bind(PreparedStatement statement) throws SQLException;
    }

    static String plan(Connection connection, String explain, Binding binding) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(explain)) {
            binding.bind(select);
            StringBuilder plan = new StringBuilder();
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    plan.append(rows.getString(1)).append('\n');
                }
            }
            return plan.toString();
        }
    }

    /**
     * The generic plan of {@code sql} (its {@code ?} numbered), as PostgreSQL runs a statement prepared on the server
     * once it stops planning it for each call's values (docs/pitfalls.md #97): prepared under a name of its own, run by
     * {@code explain} (an {@code EXPLAIN …} prefix) with {@code literals} under {@code plan_cache_mode =
     * force_generic_plan}. An {@code EXPLAIN} sent with bound parameters would be planned for their values.
     */
    static String genericPlan(Connection connection, String explain, String sql, String... literals)
            throws SQLException {
        StringBuilder numbered = new StringBuilder();
        int parameter = 0;
        for (char c : sql.toCharArray()) {
            if (c == '?') {
                numbered.append('$').append(++parameter);
            } else {
                numbered.append(c);
            }
        }
        try (Statement statement = connection.createStatement()) {
            statement.execute("PREPARE plan_test_generic AS " + numbered);
            try {
                statement.execute("SET plan_cache_mode = force_generic_plan");
                StringBuilder plan = new StringBuilder();
                try (ResultSet rows = statement.executeQuery(explain + " EXECUTE plan_test_generic("
                        + String.join(", ", literals) + ")")) {
                    while (rows.next()) {
                        plan.append(rows.getString(1)).append('\n');
                    }
                }
                return plan.toString();
            } finally {
                statement.execute("RESET plan_cache_mode");
                statement.execute("DEALLOCATE plan_test_generic");
            }
        }
    }

    /** A history of 200,000 finished rebuild runs over three projections, one a minute from 2029 on. */
    private static final String FINISHED_RUNS = """
            INSERT INTO projection_rebuild (run_id, projection, tenant_id, state, marked, exhausted, started_at,
                                            finished_at, partitions, partitions_left)
            SELECT 'finished-' || i, 'p' || (i % 3), '', 'FINISHED', 10, TRUE,
                   TIMESTAMPTZ '2029-01-01 00:00:00+00' + i * INTERVAL '1 minute',
                   TIMESTAMPTZ '2029-01-01 00:00:30+00' + i * INTERVAL '1 minute', 1, 0
              FROM generate_series(1, 200000) AS i""";

    /**
     * The retention's prune (docs/contract.md §12) reads the oldest audit entries by the time index and the oldest
     * ended runs by the finished index (each checked for a later run by the projection index), a batch at a time,
     * whatever the history holds: here 1,000,000 audit entries and 200,000 ended runs, all past the retention.
     */
    @Test
    void theRetentionsPruneReadsItsBatchByIndexesNotTheHistory() throws Exception {
        try (Connection connection = connect(); Statement statement = connection.createStatement()) {
            statement.execute("""
                    INSERT INTO projection_audit (at, user_name, action, projection)
                    SELECT TIMESTAMPTZ '2029-01-01 00:00:00+00' + i * INTERVAL '1 second', 'u' || (i % 7), 'pause', 'p'
                      FROM generate_series(1, 1000000) AS i""");
            statement.execute(FINISHED_RUNS);
            statement.execute("ANALYZE projection_audit");
            statement.execute("ANALYZE projection_rebuild");
            try {
                java.time.OffsetDateTime before = NOW.atOffset(ZoneOffset.UTC);
                String audit = plan(connection, "EXPLAIN " + new dev.projections.inspect.AuditLog()
                        .pruneSql(Dialect.POSTGRESQL, 1000), select -> select.setObject(1, before));
                assertThat(audit).as(audit).contains("projection_audit_at_idx").doesNotContain("Seq Scan");
                String runs = plan(connection, "EXPLAIN " + Tables.forProduct("PostgreSQL").endedRuns()
                        .endedBeforeSql(100), select -> select.setObject(1, before));
                assertThat(runs).as(runs).contains("projection_rebuild_finished_idx")
                        .contains("projection_rebuild_projection_idx").doesNotContain("Seq Scan");
            } finally {
                statement.execute("DELETE FROM projection_audit");
                statement.execute("DELETE FROM projection_rebuild");
            }
        }
    }

    /**
     * The look that tells drainers whether any rebuild run is active (design D40) reads the unique index of the
     * running projection and tenant, whatever the history holds: here 200,000 finished runs and one running.
     */
    @Test
    void theLookForActiveRebuildRunsReadsTheRunningIndexNotTheHistory() throws Exception {
        try (Connection connection = connect(); Statement statement = connection.createStatement()) {
            statement.execute(FINISHED_RUNS);
            statement.execute("""
                    INSERT INTO projection_rebuild (run_id, projection, tenant_id, state, marked, exhausted, started_at,
                                                    running_projection, running_tenant, partitions, partitions_left)
                    VALUES ('running', 'p0', '', 'RUNNING', 0, FALSE, TIMESTAMPTZ '2030-01-01 10:00:00+00', 'p0', '', 1, 1)""");
            statement.execute("ANALYZE projection_rebuild");
            try {
                String plan = plan(connection, "EXPLAIN " + RebuildRuns.ANY_ACTIVE + Dialect.POSTGRESQL.firstRows(1),
                        select -> { });
                assertThat(plan).as(plan).contains("projection_rebuild_one_running")
                        .doesNotContain("Seq Scan on projection_rebuild");
                assertThat(Tables.forProduct("PostgreSQL").rebuildRuns().anyActive(connection)).isTrue();
            } finally {
                statement.execute("DELETE FROM projection_rebuild");
            }
        }
    }

    /**
     * Whether another instance counted a minute's backlog (so this one need not scan the queue) reads one minute's
     * trend rows by an index, whatever the history holds: here 48 hours of minutes for 10 projections on 3 instances.
     */
    @Test
    void theCheckForACountedBacklogAndTheHoursLagReadTheTrendIndexesNotTheHistory() throws Exception {
        try (Connection connection = connect(); Statement statement = connection.createStatement()) {
            statement.execute("""
                    INSERT INTO projection_trend (projection, sampled_minute, instance_id, pending, refreshes, failures)
                    SELECT 'p' || (i % 10), TIMESTAMPTZ '2029-12-30 12:00:00+00' + (i / 30) * INTERVAL '1 minute',
                           'node-' || (i / 10 % 3), 5, 1, 0
                      FROM generate_series(0, 48 * 60 * 30 - 1) AS i""");
            statement.execute("ANALYZE projection_trend");
            try {
                String plan = plan(connection, "EXPLAIN " + TrendTable.backlogsCountedSql(3), select -> {
                    for (int i = 0; i < 3; i++) {
                        select.setString(i + 1, "p" + i);
                    }
                    select.setObject(4, NOW.minusSeconds(60).atOffset(ZoneOffset.UTC));
                });
                // the key (projection, minute) or the minute's index: either reads one minute's rows only
                assertThat(plan).as(plan).containsPattern("Index (Only )?Scan using projection_trend_(pk|minute_idx)")
                        .doesNotContain("Seq Scan on projection_trend");
                // the console's lag of the last hour, every projection's: the minute index, not the 48 hours
                String lags = plan(connection, "EXPLAIN " + TrendTable.ALL_LAGS, select -> {
                    select.setObject(1, NOW.minusSeconds(3600).atOffset(ZoneOffset.UTC));
                    select.setObject(2, NOW.atOffset(ZoneOffset.UTC));
                });
                assertThat(lags).as(lags).containsPattern("(Index Scan using|Bitmap Index Scan on) projection_trend_(pk|minute_idx)")
                        .doesNotContain("Seq Scan on projection_trend");
            } finally {
                statement.execute("DELETE FROM projection_trend");
            }
        }
    }

    private static Connection connect() throws SQLException {
        TestDatabase database = TestDatabase.get();
        return DriverManager.getConnection(url, database.user(), database.password());
    }
}
