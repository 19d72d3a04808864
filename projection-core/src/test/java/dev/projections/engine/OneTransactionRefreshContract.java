package dev.projections.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.projections.MarkKey;
import dev.projections.TenantScope;
import dev.projections.NonRetryableRefreshException;
import dev.projections.Projection;
import dev.projections.config.ProjectionSettings;
import dev.projections.config.SettingSource;
import dev.projections.config.Settings;
import dev.projections.refresh.AdjustableClock;
import dev.projections.refresh.Handoff;
import dev.projections.refresh.JdbcTransactions;
import dev.projections.refresh.Transactions;
import dev.projections.refresh.ProjectionCatalog;
import dev.projections.store.PendingQueue;
import dev.projections.store.AckOutcome;
import dev.projections.store.ClaimedMark;
import dev.projections.store.Tables;
import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A lone committed key claimed, refreshed and acked in one transaction (docs/design.md D53), on a real database: the
 * claim is never seen by another transaction, one worker per key holds on this path too, a business commit of the key
 * meanwhile waits and marks it anew, and an instance that dies at any point of it (after the claim, after the refresh's
 * writes, at the commit) leaves the mark as it was, due and unleased, for another instance to take at once, with
 * nothing of the refresh written. Each database a subclass.
 */
abstract class OneTransactionRefreshContract {

    static final String PROJECTION = "one-tx";
    /** A second projection, marked with the first by a commit as an order marks its search entry and its customer. */
    static final String PAIRED = "one-tx-pair";
    private static final Duration WAIT = Duration.ofSeconds(30);

    /** The instance died: nothing after the kill point runs, its transaction never commits. */
    static final class InstanceDied extends Error {
        InstanceDied() {
            super("the instance died here");
        }
    }

    /** A new connection to the test database, with the product's tables and the read model's log. */
    protected abstract Connection connect() throws SQLException;

    protected abstract String product();

    protected abstract long sessionId(Connection connection) throws SQLException;

    /** Ends session {@code sessionId} as a crashed instance's would end: the server rolls its transaction back. */
    protected abstract void kill(Connection observer, long sessionId) throws SQLException;

    protected abstract boolean isWaitingForALock(Connection observer, long sessionId) throws SQLException;

    /** The settings that turn the path on for this database ({@code projection.one-transaction} where off by default). */
    protected abstract Map<String, String> oneTransactionOn();

    /** Whether the refresh's lock waits are bounded on this path, so a lock cycle ends with the refresh giving way. */
    protected abstract boolean refreshGivesWayInALockCycle();

    /**
     * Still unless a test moves it: every refresh then takes no time by the engine's clock, so the path's rule (short
     * refreshes, {@code OneTransactionRuleTest}) lets each instance's key through however slow the machine is.
     */
    protected final AdjustableClock clock = new AdjustableClock(Clock.fixed(Instant.parse("2026-12-05T10:00:00Z"),
            ZoneOffset.UTC));
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private final List<Engine> engines = new ArrayList<>();
    /** What the projection does at the start and the end of each refresh (a latch, a kill). */
    protected volatile ThrowingRunnable atRefreshStart = () -> { };
    private volatile ThrowingRunnable atRefreshEnd = () -> { };
    /** What the second projection does at the end of each refresh. */
    protected volatile ThrowingRunnable atPairedRefreshEnd = () -> { };
    private final AtomicInteger pairedRefreshesBegun = new AtomicInteger();
    /** The instances' tenant scope: none unless a test sets one. */
    private volatile TenantScope tenantScope = TenantScope.NONE;
    /** What a connection does when its transaction commits, once. */
    private final AtomicReference<ThrowingRunnable> atNextCommit = new AtomicReference<>();
    private final AtomicInteger refreshesBegun = new AtomicInteger();
    /** The timeout the engine gave the transaction running now (Java SE enforces none; the container's reaper does). */
    private final AtomicReference<Duration> transactionTimeout = new AtomicReference<>();
    /** The session of the refresh running now. */
    private volatile long refreshingSession;

    interface ThrowingRunnable {
        void run() throws Exception;
    }

    @BeforeEach
    void emptyTables() throws Exception {
        try (Connection connection = connect(); Statement statement = connection.createStatement()) {
            statement.execute("DELETE FROM projection_pending");
            statement.execute("DELETE FROM projection_control");
            statement.execute("CREATE TABLE IF NOT EXISTS one_tx_log (entity_id VARCHAR(100) NOT NULL)");
            statement.execute("DELETE FROM one_tx_log");
            statement.execute("CREATE TABLE IF NOT EXISTS one_tx_source (id VARCHAR(100) PRIMARY KEY, v INT NOT NULL)");
            statement.execute("DELETE FROM one_tx_source");
            statement.execute("INSERT INTO one_tx_source (id, v) VALUES ('1', 0)");
            if (!connection.getAutoCommit()) {
                connection.commit();
            }
        }
    }

    @AfterEach
    void stop() {
        engines.forEach(Engine::stop);
        threads.shutdownNow();
    }

    /** The projection: each refresh appends the key to {@code one_tx_log} in the engine's transaction. */
    private final Projection projection = new Projection() {
        @Override
        public String name() {
            return PROJECTION;
        }

        @Override
        public void refresh(String id) throws Exception {
            refreshesBegun.incrementAndGet();
            refreshingSession = sessionId(JdbcTransactions.current());
            atRefreshStart.run();
            logInTheRefreshTransaction(id);
            atRefreshEnd.run();
        }
    };

    /** Appends {@code entry} to {@code one_tx_log} in the engine's transaction, as each refresh does. */
    private static void logInTheRefreshTransaction(String entry) throws SQLException {
        try (PreparedStatement insert = JdbcTransactions.current()
                .prepareStatement("INSERT INTO one_tx_log (entity_id) VALUES (?)")) {
            insert.setString(1, entry);
            insert.executeUpdate();
        }
    }

    /** The second projection: each refresh appends "pair:" and the key to {@code one_tx_log}. */
    private final Projection paired = new Projection() {
        @Override
        public String name() {
            return PAIRED;
        }

        @Override
        public void refresh(String id) throws Exception {
            pairedRefreshesBegun.incrementAndGet();
            refreshingSession = sessionId(JdbcTransactions.current());
            logInTheRefreshTransaction("pair:" + id);
            atPairedRefreshEnd.run();
        }
    };

    @Test
    void aCommitThatMarksTwoProjectionsHasBothRefreshedAndAckedInOneTransaction() throws Exception {
        Engine engine = pairedEngine();
        MarkKey first = mark("1");
        MarkKey second = pairedMark("7");
        AtomicReference<List<String>> seenInside = new AtomicReference<>();
        AtomicReference<List<String>> seenOutside = new AtomicReference<>();
        AtomicReference<String> claimsSeenMeanwhile = new AtomicReference<>("not looked");
        atPairedRefreshEnd = () -> {
            seenInside.set(log(JdbcTransactions.current()));
            seenOutside.set(log());
            claimsSeenMeanwhile.set(claimToken(first) + "/" + claimToken(second));
        };

        engine.drainers().committed(List.of(first, second));

        assertThat(seenInside.get()).as("both refreshes' writes in the second's transaction")
                .containsExactlyInAnyOrder("1", "pair:7");
        assertThat(seenOutside.get()).as("neither committed while the second runs").isEmpty();
        assertThat(claimsSeenMeanwhile.get()).as("the claims another transaction sees meanwhile").isEqualTo("null/null");
        assertThat(log()).containsExactlyInAnyOrder("1", "pair:7");
        assertThat(markOf(first)).as("acked").isNull();
        assertThat(markOf(second)).as("acked").isNull();
        assertThat(refreshesBegun).hasValue(1);
        assertThat(pairedRefreshesBegun).hasValue(1);
    }

    @Test
    void whenOneOfTwoPairedRefreshesFailsTheOtherIsRefreshedAloneAndTheFailureRecordedOnce() throws Exception {
        Engine engine = pairedEngine();
        MarkKey first = mark("1");
        MarkKey second = pairedMark("7");
        atPairedRefreshEnd = () -> {
            throw new IllegalStateException("customer 7 cannot be counted");
        };

        engine.drainers().committed(List.of(first, second));

        assertThat(pairedRefreshesBegun).as("one refresh for one attempt").hasValue(1);
        assertThat(refreshesBegun).as("the other's refresh: rolled back with the pair, then alone").hasValue(2);
        assertThat(log()).as("the other projection's refresh, committed alone").containsExactly("1");
        assertThat(markOf(first)).as("acked").isNull();
        Object[] failed = markOf(second);
        assertThat(failed[0]).as("attempts").isEqualTo(1);
        assertThat(failed[1]).as("claim token: none left").isNull();
        assertThat((String) failed[2]).as("last error").contains("customer 7");

        // the failing projection rests from pairs: the next commit's keys go apart, no refresh thrown away
        MarkKey third = mark("2");
        MarkKey fourth = pairedMark("8");
        engine.drainers().committed(List.of(third, fourth));

        assertThat(refreshesBegun).as("refreshed once, alone").hasValue(3);
        assertThat(log()).containsExactlyInAnyOrder("1", "2");
        assertThat(markOf(fourth)[0]).as("attempts").isEqualTo(1);
    }

    /**
     * The first of the pair (in key order) failing: its failure recorded once, and the companion's key, not refreshed
     * yet, handed back and refreshed as a turn of its own.
     */
    @Test
    void whenTheFirstOfAPairFailsTheCompanionIsHandedBackAndRefreshedAsATurnOfItsOwn() throws Exception {
        Engine engine = pairedEngine();
        MarkKey first = mark("1");
        MarkKey second = pairedMark("7");
        AtomicBoolean secondHeldMeanwhile = new AtomicBoolean();
        atRefreshEnd = () -> {
            secondHeldMeanwhile.set(rowHeldByAnother(second));
            throw new IllegalStateException("order 1 cannot be indexed");
        };

        engine.drainers().committed(List.of(first, second));

        assertThat(secondHeldMeanwhile).as("the companion's row claimed in the first's transaction: a pair").isTrue();
        assertThat(refreshesBegun).as("one refresh for one attempt").hasValue(1);
        assertThat(pairedRefreshesBegun).as("not reached in the pair; then a turn of its own").hasValue(1);
        assertThat(log()).containsExactly("pair:7");
        assertThat(markOf(first)[0]).as("attempts").isEqualTo(1);
        assertThat(markOf(second)).as("acked").isNull();
    }

    @Test
    void anInstanceThatDiesInAPairBeforeItsAckLeavesBothMarksForAnotherAtOnceAndNothingWritten() throws Exception {
        diesInAPairAndAnotherRefreshes(() -> atPairedRefreshEnd = this::killTheRefreshAndDie);
    }

    @Test
    void anInstanceThatDiesAfterAPairsAckBeforeItsCommitLeavesBothMarksForAnotherAtOnceAndNothingWritten()
            throws Exception {
        diesInAPairAndAnotherRefreshes(() -> atPairedRefreshEnd = () -> atNextCommit.set(this::killTheRefreshAndDie));
    }

    private void diesInAPairAndAnotherRefreshes(Runnable armKillPoint) throws Exception {
        Engine dying = pairedEngine();
        MarkKey first = mark("1");
        MarkKey second = pairedMark("7");
        Object[] firstBefore = markOf(first);
        Object[] secondBefore = markOf(second);
        armKillPoint.run();

        assertThatThrownBy(() -> dying.drainers().committed(List.of(first, second))).isInstanceOf(InstanceDied.class);

        assertThat(refreshesBegun).as("the first refreshed, in the pair, before the instance died").hasValue(1);
        assertThat(log()).as("nothing of either refresh written").isEmpty();
        assertThat(markOf(first)).as("the mark as it was").containsExactly(firstBefore);
        assertThat(markOf(second)).as("the mark as it was").containsExactly(secondBefore);
        atPairedRefreshEnd = () -> { };
        atNextCommit.set(null);
        Engine other = unwarmed(oneTransactionOn());
        other.drainers().committed(List.of(first, second)); // the clock has not moved: no lease to wait for
        assertThat(log()).containsExactlyInAnyOrder("1", "pair:7");
        assertThat(markOf(first)).isNull();
        assertThat(markOf(second)).isNull();
    }

    @Test
    void aLoneCommittedKeyIsRefreshedAndAckedWithAClaimNoOtherTransactionEverSees() throws Exception {
        Engine engine = engine(Map.of());
        MarkKey key = mark("1");
        AtomicReference<String> claimSeenMeanwhile = new AtomicReference<>("not looked");
        atRefreshStart = () -> claimSeenMeanwhile.set(claimToken(key));

        engine.drainers().committed(List.of(key));

        assertThat(claimSeenMeanwhile.get()).as("the claim token another transaction sees during the refresh").isNull();
        assertThat(log()).containsExactly("1");
        assertThat(markOf(key)).as("acked").isNull();
    }

    @Test
    void withOneTransactionOffTheClaimCommitsBeforeTheRefresh() throws Exception {
        Engine engine = engine(Map.of(ProjectionSettings.key(PROJECTION, ProjectionSettings.ONE_TRANSACTION), "false"));
        MarkKey key = mark("1");
        AtomicReference<String> claimSeenMeanwhile = new AtomicReference<>();
        atRefreshStart = () -> claimSeenMeanwhile.set(claimToken(key));

        engine.drainers().committed(List.of(key));

        assertThat(claimSeenMeanwhile.get()).as("the committed claim's token").isNotNull();
        assertThat(log()).containsExactly("1");
    }

    @Test
    void aRefreshThatFailsRollsBackAndIsRecordedOnceWithoutASecondRefresh() throws Exception {
        Engine engine = engine(Map.of());
        MarkKey key = mark("1");
        atRefreshEnd = () -> {
            throw new IllegalStateException("boom");
        };

        engine.drainers().committed(List.of(key));

        assertThat(refreshesBegun).as("one refresh for one attempt").hasValue(1);
        assertThat(log()).isEmpty();
        Object[] mark = markOf(key);
        assertThat(mark[0]).as("attempts").isEqualTo(1);
        assertThat(mark[1]).as("claim token: none left").isNull();
        assertThat((String) mark[2]).as("last error").contains("boom");
        assertThat((Timestamp) mark[3]).as("due after a backoff").isAfter(Timestamp.from(clock.instant()));
    }

    @Test
    void aNonRetryableFailureParksTheMarkAtOnce() throws Exception {
        Engine engine = engine(Map.of());
        MarkKey key = mark("1");
        atRefreshEnd = () -> {
            throw new NonRetryableRefreshException("order 1 cannot be indexed");
        };

        engine.drainers().committed(List.of(key));

        assertThat(refreshesBegun).hasValue(1);
        try (Connection connection = connect(); PreparedStatement select = connection.prepareStatement(
                "SELECT COUNT(*) FROM projection_pending WHERE entity_id = '1' AND parked_at IS NOT NULL");
             ResultSet rows = select.executeQuery()) {
            rows.next();
            assertThat(rows.getLong(1)).as("parked").isEqualTo(1);
        }
    }

    /**
     * A handed key the one transaction could not claim (its row held a moment by another transaction, which the claim
     * skips) is looked for before its drainer ends, and refreshed then: it does not wait for the sweep. Only a key
     * acked as claimed owes no look (docs/design.md D53).
     */
    @Test
    void aKeyTheOneTransactionSkippedIsRefreshedBeforeItsDrainerEnds() throws Exception {
        Engine engine = engine(Map.of());
        MarkKey key = mark("1");
        Connection holder = connect();
        holder.setAutoCommit(false);
        try (PreparedStatement lock = holder.prepareStatement("SELECT generation FROM projection_pending"
                + " WHERE projection = ? AND tenant_id = ? AND entity_id = ? FOR UPDATE")) {
            lock.setString(1, key.projection());
            lock.setString(2, key.tenantId());
            lock.setString(3, key.entityId());
            lock.executeQuery().close();
        }
        // the one transaction, having claimed nothing, commits: the row is free from then on
        atNextCommit.set(() -> {
            holder.commit();
            holder.close();
        });

        engine.drainers().committed(List.of(key));

        assertThat(holder.isClosed()).as("the one transaction ran and committed while the row was held").isTrue();
        assertThat(log()).containsExactly("1");
        assertThat(markOf(key)).as("acked").isNull();
    }

    @Test
    void whileOneInstanceRefreshesAKeyInOneTransactionAnotherTakesNothingOfIt() throws Exception {
        Engine first = engine(Map.of());
        Engine second = engine(Map.of());
        MarkKey key = mark("1");
        CountDownLatch finish = new CountDownLatch(1);
        CompletableFuture<Void> firstDrains = refreshingUntil(finish, first, key);

        second.drainers().committed(List.of(key)); // the key handed over, then a look at every due mark
        second.refresh().drain();

        assertThat(refreshesBegun).as("refreshes begun: the first instance's only").hasValue(1);
        finish.countDown();
        firstDrains.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertThat(log()).containsExactly("1");
        assertThat(markOf(key)).isNull();
    }

    @Test
    void aBusinessCommitOfTheKeyDuringItsRefreshWaitsAndMarksItAnew() throws Exception {
        Engine engine = engine(Map.of());
        MarkKey key = mark("1");
        CountDownLatch finish = new CountDownLatch(1);
        CompletableFuture<Void> drains = refreshingUntil(finish, engine, key);
        AtomicReference<Long> businessSession = new AtomicReference<>();
        CompletableFuture<Void> business = CompletableFuture.runAsync(() -> {
            try (Connection connection = connect()) {
                connection.setAutoCommit(false);
                businessSession.set(sessionId(connection));
                // due in a minute of the engine's clock: no drainer takes it before the test looks at it
                store().queue().upsert(connection, List.of(key), PendingQueue.LIVE, clock.instant().plusSeconds(60));
                connection.commit();
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        }, threads);
        try (Connection observer = connect()) {
            awaitTrue("the business commit waits for the mark's row",
                    () -> businessSession.get() != null && isWaitingForALock(observer, businessSession.get()));
        }
        assertThat(business).as("waiting for the refresh's commit").isNotDone();

        finish.countDown();
        business.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        drains.get(WAIT.toSeconds(), TimeUnit.SECONDS);

        assertThat(log()).as("the refresh committed").containsExactly("1");
        Object[] mark = markOf(key);
        assertThat(mark).as("the business commit's mark, not lost").isNotNull();
        assertThat(mark[0]).as("attempts").isEqualTo(0);
        assertThat(mark[1]).as("unclaimed").isNull();
        clock.advance(Duration.ofSeconds(61));
        engine.drainers().committed(List.of(key));
        assertThat(log()).containsExactly("1", "1");
        assertThat(markOf(key)).isNull();
    }

    @Test
    void anInstanceThatDiesAfterTheClaimLeavesTheMarkForAnotherAtOnce() throws Exception {
        diesAndAnotherRefreshes(() -> atRefreshStart = this::killTheRefreshAndDie);
    }

    @Test
    void anInstanceThatDiesAfterTheRefreshWroteBeforeTheAckLeavesTheMarkForAnotherAtOnceAndNothingWritten()
            throws Exception {
        diesAndAnotherRefreshes(() -> atRefreshEnd = this::killTheRefreshAndDie);
    }

    /** The last point before the commit reaches the database; once it has, the refresh simply committed. */
    @Test
    void anInstanceThatDiesAfterTheAckBeforeItsCommitLeavesTheMarkForAnotherAtOnceAndNothingWritten()
            throws Exception {
        diesAndAnotherRefreshes(() -> atRefreshEnd = () -> atNextCommit.set(this::killTheRefreshAndDie));
    }

    @Test
    void aRefreshThatWaitsForTheLockOfABusinessTransactionWaitingForItsMarkGivesWay() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(refreshGivesWayInALockCycle(),
                "off by default on this database (docs/pitfalls.md #96)");
        Engine engine = engine(Map.of());
        MarkKey key = mark("1");
        CountDownLatch businessHoldsTheSource = new CountDownLatch(1);
        CountDownLatch refreshHoldsTheMark = new CountDownLatch(1);
        AtomicReference<Long> businessSession = new AtomicReference<>();
        CompletableFuture<Void> business = CompletableFuture.runAsync(() -> {
            try (Connection connection = connect()) {
                connection.setAutoCommit(false);
                businessSession.set(sessionId(connection));
                try (Statement update = connection.createStatement()) {
                    update.executeUpdate("UPDATE one_tx_source SET v = v + 1 WHERE id = '1'");
                }
                businessHoldsTheSource.countDown();
                assertThat(refreshHoldsTheMark.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
                store().queue().upsert(connection, List.of(key), PendingQueue.LIVE, clock.instant()); // at commit
                connection.commit();
            } catch (SQLException | InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }, threads);
        assertThat(businessHoldsTheSource.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
        AtomicInteger cyclesClosed = new AtomicInteger();
        atRefreshStart = () -> {
            if (cyclesClosed.getAndIncrement() > 0) {
                return; // the ordinary path's refresh, once the business transaction is gone
            }
            refreshHoldsTheMark.countDown();
            try (Connection observer = connect()) {
                awaitTrue("the business transaction waits for the mark's row",
                        () -> isWaitingForALock(observer, businessSession.get()));
            }
            try (Statement lock = JdbcTransactions.current().createStatement()) {
                lock.executeQuery("SELECT v FROM one_tx_source WHERE id = '1' FOR UPDATE").close(); // the cycle
            }
        };

        engine.drainers().committed(List.of(key));
        business.get(WAIT.toSeconds(), TimeUnit.SECONDS); // committed: not the deadlock's victim

        engine.drainers().committed(List.of(key)); // the business commit's hand-off
        assertThat(log()).contains("1");
        assertThat(markOf(key)).isNull();
        try (Connection connection = connect(); Statement select = connection.createStatement();
             ResultSet rows = select.executeQuery("SELECT v FROM one_tx_source WHERE id = '1'")) {
            rows.next();
            assertThat(rows.getInt(1)).as("the business update").isEqualTo(1);
        }
    }

    // --- a rebuild's batch in one transaction (docs/design.md D59): rebuild marks, taken by a look at due marks

    /**
     * Live marks are the keys business commits mark again: a batch holding them would make those commits wait for it
     * (a business rate of 0.36 of its synchronous bound in the server benchmark), so they go the two transactions.
     */
    @Test
    void aLookThatFindsLiveMarksDueGoesTheTwoTransactionWay() throws Exception {
        Engine engine = engine(Map.of());
        List<MarkKey> keys = List.of(mark("1"), mark("2"));
        List<String> claimsSeenMeanwhile = new CopyOnWriteArrayList<>();
        atRefreshStart = () -> claimsSeenMeanwhile.add(String.valueOf(claimToken(keys.get(0))));

        engine.refresh().drain();

        assertThat(claimsSeenMeanwhile).as("a committed claim before each refresh").doesNotContain("null");
        assertThat(log()).containsExactlyInAnyOrder("1", "2");
    }

    @Test
    void aRebuildsBatchIsClaimedRefreshedAndAckedInOneTransaction() throws Exception {
        Engine engine = engine(Map.of());
        List<MarkKey> keys = List.of(rebuildMark("1"), rebuildMark("2"), rebuildMark("3"));
        List<String> claimsSeenMeanwhile = new CopyOnWriteArrayList<>();
        atRefreshStart = () -> {
            for (MarkKey key : keys) {
                claimsSeenMeanwhile.add(String.valueOf(claimToken(key)));
            }
        };

        engine.refresh().drain();

        assertThat(claimsSeenMeanwhile).as("claim tokens another transaction sees during the refreshes")
                .hasSize(9).containsOnly("null");
        assertThat(log()).containsExactlyInAnyOrder("1", "2", "3");
        for (MarkKey key : keys) {
            assertThat(markOf(key)).as("acked").isNull();
        }
    }

    @Test
    void whileOneInstanceRefreshesABatchInOneTransactionAnotherTakesNothingOfIt() throws Exception {
        // the batch's claim writes nothing on PostgreSQL (a lock only): its row locks alone keep the others off
        Engine first = engine(Map.of());
        Engine second = engine(Map.of());
        List<MarkKey> keys = List.of(rebuildMark("1"), rebuildMark("2"));
        CountDownLatch finish = new CountDownLatch(1);
        CompletableFuture<Void> firstDrains = drainingUntil(finish, first);
        assertThat(claimToken(keys.get(0))).as("in one transaction").isNull();

        second.drainers().committed(keys); // handed over, then a look at every due mark
        second.refresh().drain();

        assertThat(refreshesBegun).as("refreshes begun: the first instance's batch only").hasValue(1);
        finish.countDown();
        firstDrains.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertThat(log()).containsExactlyInAnyOrder("1", "2");
        assertThat(keys).allSatisfy(key -> assertThat(markOf(key)).as("acked").isNull());
    }

    @Test
    void aBatchWhoseRefreshFailsRollsBackWholeAndItsKeysGoTheOrdinaryWay() throws Exception {
        Engine engine = engine(Map.of());
        List<MarkKey> keys = List.of(rebuildMark("1"), rebuildMark("2"), rebuildMark("3"));
        AtomicInteger failures = new AtomicInteger();
        List<String> claimsSeenMeanwhile = new CopyOnWriteArrayList<>();
        atRefreshStart = () -> claimsSeenMeanwhile.add(String.valueOf(claimToken(keys.get(0))));
        atRefreshEnd = () -> {
            if (failures.getAndIncrement() == 1) {
                throw new IllegalStateException("the second refresh of the batch fails, once");
            }
        };

        engine.refresh().drain();

        assertThat(log()).as("each key once: the rolled-back batch wrote nothing").containsExactlyInAnyOrder("1", "2", "3");
        assertThat(claimsSeenMeanwhile.subList(0, 2)).as("the batch in one transaction").containsOnly("null");
        assertThat(claimsSeenMeanwhile.get(2)).as("then the ordinary way: a committed claim").isNotEqualTo("null");
        for (MarkKey key : keys) {
            assertThat(markOf(key)).as("acked, no failure recorded").isNull();
        }
    }

    @Test
    void aBatchWithARetryInItGoesTheOrdinaryWay() throws Exception {
        Engine engine = engine(Map.of());
        List<MarkKey> keys = List.of(rebuildMark("1"), rebuildMark("2"));
        try (Connection connection = connect(); Statement update = connection.createStatement()) {
            update.executeUpdate("UPDATE projection_pending SET attempts = 1 WHERE entity_id = '2'");
            if (!connection.getAutoCommit()) {
                connection.commit();
            }
        }
        List<String> claimsSeenMeanwhile = new CopyOnWriteArrayList<>();
        atRefreshStart = () -> claimsSeenMeanwhile.add(String.valueOf(claimToken(keys.get(1))));

        engine.refresh().drain();

        assertThat(claimsSeenMeanwhile).as("a committed claim before each refresh").doesNotContain("null");
        assertThat(log()).containsExactlyInAnyOrder("1", "2");
    }

    @Test
    void aBatchOfMarksWithTenantsUnderATenantScopeGoesTheOrdinaryWayAsItsTenant() throws Exception {
        List<String> entered = new CopyOnWriteArrayList<>();
        tenantScope = tenantId -> {
            entered.add(tenantId);
            return () -> { };
        };
        Engine engine = engine(Map.of());
        List<MarkKey> keys = List.of(rebuildMark("acme", "1"), rebuildMark("acme", "2"));
        List<String> claimsSeenMeanwhile = new CopyOnWriteArrayList<>();
        atRefreshStart = () -> claimsSeenMeanwhile.add(String.valueOf(claimToken(keys.get(0))));

        engine.refresh().drain();

        assertThat(claimsSeenMeanwhile).as("a committed claim: the transaction began as the tenant").doesNotContain("null");
        assertThat(entered).contains("acme");
        assertThat(log()).containsExactlyInAnyOrder("1", "2");
    }

    /**
     * A batch's rows stay locked until it commits, so its claim must lock no row it does not claim: a mark leased to
     * another worker, which the due claim passes over, is acked by that worker meanwhile without waiting for the batch
     * (MariaDB's locking read through the claim index kept such rows locked, docs/pitfalls.md #94).
     */
    @Test
    void aBatchLocksNoMarkItPassedOverSoAnotherWorkersAckNeverWaitsForIt() throws Exception {
        Engine engine = engine(Map.of());
        MarkKey leased = mark("0");
        ClaimedMark othersClaim;
        try (Connection connection = connect()) {
            connection.setAutoCommit(false);
            othersClaim = store().queue().claimKeys(connection, List.of(leased), List.of(PROJECTION), clock.instant(),
                    Duration.ofMinutes(2), "another-worker").get(0);
            connection.commit();
        }
        rebuildMark("1");
        rebuildMark("2");
        AtomicReference<Long> ackSession = new AtomicReference<>();
        AtomicReference<CompletableFuture<AckOutcome>> ack = new AtomicReference<>();
        AtomicBoolean ackDoneWhileTheBatchRan = new AtomicBoolean();
        atRefreshStart = () -> {
            if (ack.get() != null) {
                return;
            }
            ack.set(CompletableFuture.supplyAsync(() -> {
                try (Connection connection = connect()) {
                    connection.setAutoCommit(false);
                    ackSession.set(sessionId(connection));
                    AckOutcome outcome = store().queue().ack(connection, othersClaim, clock.instant());
                    connection.commit();
                    return outcome;
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            }, threads));
            try (Connection observer = connect()) {
                awaitTrue("the other worker's ack ended or waits",
                        () -> ack.get().isDone() || ackSession.get() != null && isWaitingForALock(observer, ackSession.get()));
            }
            ackDoneWhileTheBatchRan.set(ack.get().isDone()); // noted, not asserted: the engine would catch the error
        };

        engine.refresh().drain(); // a look at due marks, in one transaction

        assertThat(ackDoneWhileTheBatchRan).as("the other worker's ack ended while the batch held its rows").isTrue();
        assertThat(ack.get().get()).isEqualTo(AckOutcome.SUCCESS);
        assertThat(log()).containsExactlyInAnyOrder("1", "2");
    }

    @Test
    void aBusinessCommitOfAKeyInABatchWaitsForTheBatchAndMarksItAnew() throws Exception {
        Engine engine = engine(Map.of());
        List<MarkKey> keys = List.of(rebuildMark("1"), rebuildMark("2"));
        CountDownLatch finish = new CountDownLatch(1);
        CompletableFuture<Void> drains = drainingUntil(finish, engine);
        AtomicReference<Long> businessSession = new AtomicReference<>();
        CompletableFuture<Void> business = CompletableFuture.runAsync(() -> {
            try (Connection connection = connect()) {
                connection.setAutoCommit(false);
                businessSession.set(sessionId(connection));
                // due in a minute of the engine's clock: no drainer takes it before the test looks at it
                store().queue().upsert(connection, List.of(keys.get(1)), PendingQueue.LIVE, clock.instant().plusSeconds(60));
                connection.commit();
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        }, threads);
        try (Connection observer = connect()) {
            awaitTrue("the business commit waits for the batch's row",
                    () -> businessSession.get() != null && isWaitingForALock(observer, businessSession.get()));
        }
        assertThat(business).as("waiting for the batch's commit").isNotDone();

        finish.countDown();
        business.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        drains.get(WAIT.toSeconds(), TimeUnit.SECONDS);

        assertThat(log()).as("the batch committed").containsExactlyInAnyOrder("1", "2");
        assertThat(markOf(keys.get(0))).as("acked").isNull();
        Object[] mark = markOf(keys.get(1));
        assertThat(mark).as("the business commit's mark, not lost").isNotNull();
        assertThat(mark[1]).as("unclaimed").isNull();
    }

    @Test
    void aCancelledRunsPurgeLeavesABatchInFlightAndKeepsItsTenantReservedUntilTheBatchEnds() throws Exception {
        // a claim in one transaction is a row lock nobody else sees: the purge must count the batch's marks as in
        // flight all the same, or the run's tenant is freed while its marks are still being refreshed (pitfall #122)
        Engine engine = engine(Map.of("projection.batch-size", "2"));
        String tenant = "cancel-" + UUID.randomUUID();
        String runId;
        try (Connection connection = connect()) {
            connection.setAutoCommit(false);
            runId = store().rebuildRuns().start(connection, PROJECTION, tenant, clock.instant());
            connection.commit();
        }
        List<MarkKey> inTheBatch = List.of(rebuildMark(tenant, "1"), rebuildMark(tenant, "2"));
        // due strictly later, so claimed last on every database: PostgreSQL orders equal due times by row address
        clock.advance(Duration.ofMillis(1));
        MarkKey waiting = rebuildMark(tenant, "3");
        CountDownLatch finish = new CountDownLatch(1);
        CompletableFuture<Void> drains = drainingUntil(finish, engine);
        assertThat(claimToken(inTheBatch.get(0))).as("the batch runs in one transaction").isNull();

        try (Connection connection = connect()) {
            connection.setAutoCommit(false);
            assertThat(store().rebuildRuns().cancel(connection, runId, "operator", clock.instant())).isTrue();
            connection.commit();
        }
        CompletableFuture<Integer> purge = CompletableFuture.supplyAsync(() -> purge(runId), threads);
        if (product().equals("PostgreSQL")) {
            // PostgreSQL's purge skips the rows a batch holds; MariaDB's waits for them (docs/contract.md §7)
            assertThat(purge.get(WAIT.toSeconds(), TimeUnit.SECONDS)).as("the waiting mark deleted").isEqualTo(1);
            assertThat(markOf(waiting)).isNull();
            assertThat(inTheBatch).allSatisfy(key -> assertThat(markOf(key)).as("in flight, left to its ack").isNotNull());
            assertThat(tenantReserved(runId)).as("the tenant stays reserved while the batch runs").isTrue();
            assertThat(purge(runId)).as("a purge meanwhile").isZero();
            assertThat(tenantReserved(runId)).as("still reserved").isTrue();
        }

        finish.countDown();
        drains.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        purge.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        if (product().equals("PostgreSQL")) {
            assertThat(log()).as("the batch committed").containsExactlyInAnyOrder("1", "2");
        } else {
            // MariaDB's purge resumes when the batch commits, and the drain's next claim may take the waiting mark
            // first: refreshed or deleted are both right, left behind is not
            assertThat(log()).as("the batch committed").contains("1", "2").isSubsetOf("1", "2", "3");
        }
        assertThat(inTheBatch).allSatisfy(key -> assertThat(markOf(key)).as("acked").isNull());
        assertThat(markOf(waiting)).as("the waiting mark, refreshed or deleted").isNull();
        purge(runId);
        assertThat(tenantReserved(runId)).as("freed once the batch ended").isFalse();
    }

    private int purge(String runId) {
        try (Connection connection = connect()) {
            connection.setAutoCommit(false);
            int deleted = store().rebuildMarks().purgeCancelled(connection, runId, clock.instant(), 100);
            connection.commit();
            return deleted;
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private boolean tenantReserved(String runId) throws SQLException {
        try (Connection connection = connect(); PreparedStatement select = connection.prepareStatement(
                "SELECT COUNT(*) FROM projection_rebuild WHERE run_id = ? AND running_projection IS NOT NULL")) {
            select.setString(1, runId);
            try (ResultSet rows = select.executeQuery()) {
                rows.next();
                return rows.getInt(1) == 1;
            }
        }
    }

    @Test
    void aBatchsTransactionEndsWithinItsBoundNotHalfTheLeaseSoACommitOfItsKeysNeverWaitsLong() throws Exception {
        // a projection whose refreshes are typically short may hang now and then; its batch's rows, and every business
        // commit of their keys, would wait for half the lease (a minute by default), where a lone key's wait is a
        // key's and the ordinary path's none
        Engine engine = engine(Map.of("projection.lease-time", "2m"));
        List<Duration> batchTimeouts = new CopyOnWriteArrayList<>();
        atRefreshStart = () -> batchTimeouts.add(transactionTimeout.get());
        rebuildMark("1");
        rebuildMark("2");

        engine.refresh().drain();

        assertThat(log()).containsExactlyInAnyOrder("1", "2");
        assertThat(batchTimeouts).hasSize(2).allSatisfy(timeout -> assertThat(timeout)
                .as("docs/design.md D59: a batch's transaction times out after 2 s").isEqualTo(Duration.ofSeconds(2)));
    }

    @Test
    void aLoneMarkOfALookWhoseRefreshFailsIsRecordedOnceWithoutASecondRefresh() throws Exception {
        Engine engine = engine(Map.of());
        MarkKey key = rebuildMark("1");
        atRefreshEnd = () -> {
            throw new NonRetryableRefreshException("order 1 cannot be indexed");
        };

        engine.refresh().drain(); // a look at due marks: a batch, of one mark

        assertThat(refreshesBegun).as("one refresh for one attempt").hasValue(1);
        try (Connection connection = connect(); PreparedStatement select = connection.prepareStatement(
                "SELECT COUNT(*) FROM projection_pending WHERE entity_id = '1' AND parked_at IS NOT NULL");
             ResultSet rows = select.executeQuery()) {
            rows.next();
            assertThat(rows.getLong(1)).as("parked at once").isEqualTo(1);
        }
        assertThat(log()).isEmpty();
    }

    @Test
    void aKeyMarkedAgainWhileItsBatchRanIsRefreshedAgain() throws Exception {
        Engine engine = engine(Map.of());
        List<MarkKey> keys = List.of(rebuildMark("1"), rebuildMark("2"), rebuildMark("3"));
        AtomicInteger refreshes = new AtomicInteger();
        atRefreshEnd = () -> {
            if (refreshes.incrementAndGet() == 2) { // "2" changed again while the batch ran: its row moves
                store().queue().upsert(JdbcTransactions.current(), List.of(keys.get(1)), PendingQueue.LIVE,
                        clock.instant());
            }
        };

        engine.refresh().drain();

        assertThat(log()).as("the change's key refreshed once more, not acked as claimed")
                .containsExactlyInAnyOrder("1", "2", "3", "2");
        for (MarkKey key : keys) {
            assertThat(markOf(key)).isNull();
        }
    }

    @Test
    void anInstanceThatDiesInTheMiddleOfABatchLeavesEveryMarkForAnotherAtOnce() throws Exception {
        AtomicInteger refreshes = new AtomicInteger();
        diesInABatchAndAnotherRefreshes(() -> atRefreshStart = () -> {
            if (refreshes.incrementAndGet() == 2) {
                killTheRefreshAndDie();
            }
        });
    }

    @Test
    void anInstanceThatDiesAfterABatchsAckBeforeItsCommitLeavesEveryMarkForAnotherAtOnce() throws Exception {
        AtomicInteger refreshes = new AtomicInteger();
        diesInABatchAndAnotherRefreshes(() -> atRefreshEnd = () -> {
            if (refreshes.incrementAndGet() == 3) {
                atNextCommit.set(this::killTheRefreshAndDie);
            }
        });
    }

    private void diesInABatchAndAnotherRefreshes(Runnable armKillPoint) throws Exception {
        Engine dying = engine(Map.of());
        List<MarkKey> keys = List.of(rebuildMark("1"), rebuildMark("2"), rebuildMark("3"));
        List<Object[]> before = new ArrayList<>();
        for (MarkKey key : keys) {
            before.add(markOf(key));
        }
        armKillPoint.run();

        assertThatThrownBy(() -> dying.refresh().drain()).isInstanceOf(InstanceDied.class);

        assertThat(log()).as("nothing of the batch written").isEmpty();
        for (int i = 0; i < keys.size(); i++) {
            assertThat(markOf(keys.get(i))).as("the mark as it was: attempts, claim, error, due")
                    .containsExactly(before.get(i));
        }
        atRefreshStart = () -> { };
        atRefreshEnd = () -> { };
        atNextCommit.set(null);
        Engine other = unwarmed(oneTransactionOn());
        other.drainers().committed(keys); // the clock has not moved: no lease to wait for
        assertThat(log()).containsExactlyInAnyOrder("1", "2", "3");
        for (MarkKey key : keys) {
            assertThat(markOf(key)).isNull();
        }
    }

    /**
     * {@code key} handed to {@code engine} on another thread, returning once its refresh has begun; the refresh goes on
     * when {@code finish} is counted down, and the drainer's end is the returned future's.
     */
    private CompletableFuture<Void> refreshingUntil(CountDownLatch finish, Engine engine, MarkKey key)
            throws InterruptedException {
        CountDownLatch refreshing = new CountDownLatch(1);
        atRefreshStart = () -> {
            refreshing.countDown();
            assertThat(finish.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
        };
        CompletableFuture<Void> drains = CompletableFuture.runAsync(() -> engine.drainers().committed(List.of(key)),
                threads);
        assertThat(refreshing.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
        atRefreshStart = () -> { };
        return drains;
    }

    /** {@code engine} draining on a thread of the test's, its first refresh begun and waiting for {@code finish}. */
    private CompletableFuture<Void> drainingUntil(CountDownLatch finish, Engine engine) throws Exception {
        CountDownLatch refreshing = new CountDownLatch(1);
        atRefreshStart = () -> {
            refreshing.countDown();
            assertThat(finish.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
        };
        CompletableFuture<Void> drains = CompletableFuture.runAsync(() -> engine.refresh().drain(), threads);
        assertThat(refreshing.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
        return drains;
    }

    private void killTheRefreshAndDie() throws Exception {
        try (Connection observer = connect()) {
            kill(observer, refreshingSession);
        }
        throw new InstanceDied();
    }

    private void diesAndAnotherRefreshes(Runnable armKillPoint) throws Exception {
        Engine dying = engine(Map.of());
        MarkKey key = mark("1");
        Object[] before = markOf(key);
        armKillPoint.run();

        assertThatThrownBy(() -> dying.drainers().committed(List.of(key))).isInstanceOf(InstanceDied.class);

        assertThat(log()).as("nothing of the refresh written").isEmpty();
        Object[] after = markOf(key);
        assertThat(after).as("the mark as it was: attempts, claim, error, due").containsExactly(before);
        atRefreshStart = () -> { };
        atRefreshEnd = () -> { };
        atNextCommit.set(null);
        Engine other = unwarmed(oneTransactionOn());
        other.drainers().committed(List.of(key)); // the clock has not moved: no lease to wait for
        assertThat(log()).containsExactly("1");
        assertThat(markOf(key)).isNull();
    }

    // --- the instances and the tables

    private Tables store() {
        return Tables.forProduct(product());
    }

    /**
     * One more instance, with the path on unless {@code settings} say otherwise, and warmed up: a projection goes this
     * way once one of its refreshes was timed, so the instance has refreshed a key of its own ("warm-…", left out of
     * {@link #log()}).
     */
    protected Engine engine(Map<String, String> settings) throws Exception {
        Map<String, String> all = new java.util.HashMap<>(oneTransactionOn());
        all.putAll(settings);
        Engine engine = unwarmed(all);
        MarkKey warmUp = mark("warm-" + engines.size());
        engine.drainers().committed(List.of(warmUp));
        assertThat(markOf(warmUp)).as("warmed up").isNull();
        refreshesBegun.set(0);
        return engine;
    }

    /**
     * An instance as {@link #engine}, whose second projection is warmed up too, with one drainer: a commit's second
     * lane would wait for it, so the two pair.
     */
    private Engine pairedEngine() throws Exception {
        return pairedEngine(Map.of());
    }

    /** The same, with {@code settings} too. */
    protected Engine pairedEngine(Map<String, String> settings) throws Exception {
        Map<String, String> all = new java.util.HashMap<>(settings);
        all.put(Settings.WORKERS, "1");
        Engine engine = engine(all);
        MarkKey warmUp = pairedMark("warm-" + engines.size());
        engine.drainers().committed(List.of(warmUp));
        assertThat(markOf(warmUp)).as("warmed up").isNull();
        pairedRefreshesBegun.set(0);
        return engine;
    }

    private Engine unwarmed(Map<String, String> settings) {
        Properties deployment = new Properties();
        deployment.putAll(settings);
        SettingSource source = SettingSource.standard(new Properties(), Map.of(), deployment);
        Settings resolved = ProjectionSettings.resolve(Settings.load(source), source, List.of(projection, paired));
        DataSource dataSource = dataSource();
        Engine engine = Engine.builder()
                .dataSource(dataSource)
                .store(store())
                .container(PlainContainer.on(dataSource, Runnable::run)
                        .transactions(new Transactions() {
                            private final JdbcTransactions jdbc = new JdbcTransactions(dataSource);

                            @Override
                            public <T> T inNewTransaction(Duration timeout, Work<T> work) throws Exception {
                                return jdbc.inNewTransaction(timeout, connection -> {
                                    transactionTimeout.set(timeout);
                                    return work.run(connection);
                                });
                            }
                        })
                        .tenantScope(tenantScope)
                        .clock(clock))
                .settings(resolved)
                // its drainers run on the committing test's thread: one that stays for the next commit holds the test
                .handoff(Handoff.of(resolved, Duration.ofMillis(50)))
                .projections(new ProjectionCatalog() {
                    @Override
                    public Projection byName(String name) {
                        return name.equals(PAIRED) ? paired : projection;
                    }

                    @Override
                    public Set<String> names() {
                        return Set.of(PROJECTION, PAIRED);
                    }

                    @Override
                    public Set<String> claimable() {
                        return names();
                    }
                })
                .instanceId("instance-" + engines.size())
                .withoutRebuildSteps()
                .build();
        engines.add(engine);
        return engine;
    }

    /** Connections of {@link #connect}, each running {@link #atNextCommit} when its transaction commits. */
    private DataSource dataSource() {
        return (DataSource) Proxy.newProxyInstance(DataSource.class.getClassLoader(), new Class<?>[] {DataSource.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "getConnection" -> committing(connect());
                    case "getLogWriter" -> new PrintWriter(System.err);
                    case "isWrapperFor" -> false;
                    case "getLoginTimeout" -> 0;
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    case "toString" -> "test datasource";
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }

    private Connection committing(Connection connection) {
        return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {Connection.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("commit")) {
                        ThrowingRunnable first = atNextCommit.getAndSet(null);
                        if (first != null) {
                            first.run();
                        }
                    }
                    try {
                        return method.invoke(connection, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    protected MarkKey mark(String id) throws SQLException {
        return mark("", id);
    }

    protected MarkKey rebuildMark(String id) throws SQLException {
        return rebuildMark("", id);
    }

    /** A rebuild's mark of {@code id} (as a run's step writes it). */
    protected MarkKey rebuildMark(String tenant, String id) throws SQLException {
        MarkKey key = new MarkKey(PROJECTION, tenant, id);
        try (Connection connection = connect()) {
            connection.setAutoCommit(false);
            store().queue().upsert(connection, List.of(key), PendingQueue.REBUILD, clock.instant());
            connection.commit();
        }
        return key;
    }

    protected MarkKey mark(String tenant, String id) throws SQLException {
        return mark(new MarkKey(PROJECTION, tenant, id));
    }

    protected MarkKey pairedMark(String id) throws SQLException {
        return mark(new MarkKey(PAIRED, "", id));
    }

    private MarkKey mark(MarkKey key) throws SQLException {
        try (Connection connection = connect()) {
            connection.setAutoCommit(false);
            store().queue().upsert(connection, List.of(key), PendingQueue.LIVE, clock.instant());
            connection.commit();
        }
        return key;
    }

    /** attempts, claim token, last error, due time of the key's mark; {@code null} when it has none. */
    protected Object[] markOf(MarkKey key) throws SQLException {
        try (Connection connection = connect(); PreparedStatement select = connection.prepareStatement(
                "SELECT attempts, claim_token, last_error, available_at FROM projection_pending"
                        + " WHERE projection = ? AND tenant_id = ? AND entity_id = ?")) {
            select.setString(1, key.projection());
            select.setString(2, key.tenantId());
            select.setString(3, key.entityId());
            try (ResultSet rows = select.executeQuery()) {
                return rows.next() ? new Object[] {rows.getInt(1), rows.getString(2), rows.getString(3),
                        rows.getTimestamp(4)} : null;
            }
        }
    }

    /** Whether another transaction holds {@code key}'s row locked now (a lock skipped, not waited for). */
    private boolean rowHeldByAnother(MarkKey key) throws SQLException {
        try (Connection connection = connect()) {
            connection.setAutoCommit(false);
            try (PreparedStatement select = connection.prepareStatement("SELECT entity_id FROM projection_pending"
                    + " WHERE projection = ? AND tenant_id = ? AND entity_id = ? FOR UPDATE SKIP LOCKED")) {
                select.setString(1, key.projection());
                select.setString(2, key.tenantId());
                select.setString(3, key.entityId());
                try (ResultSet rows = select.executeQuery()) {
                    return !rows.next();
                }
            } finally {
                connection.rollback();
            }
        }
    }

    protected String claimToken(MarkKey key) throws SQLException {
        Object[] mark = markOf(key);
        return mark == null ? "no mark" : (String) mark[1];
    }

    protected List<String> log() throws SQLException {
        try (Connection connection = connect()) {
            return log(connection);
        }
    }

    /** The log as {@code connection} sees it. */
    private static List<String> log(Connection connection) throws SQLException {
        List<String> ids = new ArrayList<>();
        try (Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery("SELECT entity_id FROM one_tx_log WHERE entity_id NOT LIKE '%warm-%'")) {
            while (rows.next()) {
                ids.add(rows.getString(1));
            }
        }
        return ids;
    }

    interface Condition {
        boolean holds() throws Exception;
    }

    /** Polls {@code condition} until it holds (what another session does has no event to wait on). */
    protected static void awaitTrue(String what, Condition condition) throws Exception {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!condition.holds()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within " + WAIT + ": " + what);
            }
            Thread.sleep(10);
        }
    }
}
