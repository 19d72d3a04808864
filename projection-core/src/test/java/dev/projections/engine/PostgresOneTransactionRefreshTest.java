package dev.projections.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.MarkKey;
import dev.projections.config.ProjectionSettings;
import dev.projections.config.Settings;
import dev.projections.refresh.JdbcTransactions;
import dev.projections.store.LiquibaseSchema;
import dev.projections.store.PostgresPendingQueueTest;
import dev.projections.testsupport.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@link OneTransactionRefreshContract} on PostgreSQL, in a schema of its own. */
class PostgresOneTransactionRefreshTest extends OneTransactionRefreshContract {

    private static String url;

    @BeforeAll
    static void createSchema() throws Exception {
        url = LiquibaseSchema.freshPostgresSchema("one_transaction_refresh");
    }

    @Override
    protected Connection connect() throws SQLException {
        TestDatabase database = TestDatabase.get();
        return DriverManager.getConnection(url, database.user(), database.password());
    }

    @Override
    protected String product() {
        return "PostgreSQL";
    }

    @Override
    protected Map<String, String> oneTransactionOn() {
        return Map.of(); // PostgreSQL's default
    }

    @Override
    protected boolean refreshGivesWayInALockCycle() {
        return true;
    }

    @Test
    void theRefreshWaitsForTheDiskAsItWouldAloneAndForALockAtMostTheClaimsBound() throws Exception {
        Engine engine = engine(Map.of());
        MarkKey key = mark("1");
        AtomicReference<String> seen = new AtomicReference<>();
        atRefreshStart = () -> {
            try (Statement statement = JdbcTransactions.current().createStatement();
                 ResultSet rows = statement.executeQuery(
                         "SELECT current_setting('synchronous_commit') || ' ' || current_setting('lock_timeout')")) {
                rows.next();
                seen.set(rows.getString(1));
            }
        };

        engine.drainers().committed(List.of(key));

        assertThat(seen.get()).isEqualTo("on 50ms");
        assertThat(log()).containsExactly("1");
    }

    /*
     * synchronous-commit (docs/design.md D63): PostgreSQL reads synchronous_commit when a transaction commits, so what
     * the refresh's own code reads in its transaction is how that transaction commits.
     */
    @Test
    void withSynchronousCommitOffALoneKeysRefreshCommitsWithoutWaitingForTheDisk() throws Exception {
        Engine engine = engine(Map.of(Settings.SYNCHRONOUS_COMMIT, "off"));
        MarkKey key = mark("1");
        AtomicReference<String> seen = new AtomicReference<>();
        atRefreshStart = () -> seen.set(synchronousCommitNow());

        engine.drainers().committed(List.of(key));

        assertThat(seen.get()).isEqualTo("off");
        assertThat(log()).containsExactly("1");
        assertThat(markOf(key)).as("acked").isNull();
    }

    @Test
    void withSynchronousCommitOffARebuildsBatchInOneTransactionCommitsWithoutWaitingForTheDisk() throws Exception {
        Engine engine = engine(Map.of(ProjectionSettings.key(PROJECTION, ProjectionSettings.SYNCHRONOUS_COMMIT), "off"));
        rebuildMark("1");
        rebuildMark("2");
        List<String> seen = new CopyOnWriteArrayList<>();
        atRefreshStart = () -> seen.add(synchronousCommitNow());

        engine.refresh().drain();

        assertThat(seen).containsExactly("off", "off");
        assertThat(log()).containsExactlyInAnyOrder("1", "2");
    }

    @Test
    void withSynchronousCommitSetTheOrdinaryPathsRefreshCommitsAsSetToo() throws Exception {
        Engine engine = engine(Map.of(ProjectionSettings.key(PROJECTION, ProjectionSettings.ONE_TRANSACTION), "false",
                Settings.SYNCHRONOUS_COMMIT, "local"));
        MarkKey key = mark("1");
        AtomicReference<String> seen = new AtomicReference<>();
        atRefreshStart = () -> seen.set(synchronousCommitNow() + " " + (claimToken(key) != null ? "claimed before" : "?"));

        engine.drainers().committed(List.of(key));

        assertThat(seen.get()).isEqualTo("local claimed before");
        assertThat(markOf(key)).as("acked").isNull();
    }

    @Test
    void withSynchronousCommitSetTheOrdinaryPathsBatchCommitsAsSetToo() throws Exception {
        Engine engine = engine(Map.of(ProjectionSettings.key(PROJECTION, ProjectionSettings.ONE_TRANSACTION), "false",
                Settings.SYNCHRONOUS_COMMIT, "local"));
        MarkKey first = mark("1");
        MarkKey second = mark("2");
        List<String> seen = new CopyOnWriteArrayList<>();
        atRefreshStart = () -> seen.add(synchronousCommitNow());

        engine.refresh().drain();

        assertThat(seen).containsExactly("local", "local");
        assertThat(markOf(first)).as("acked").isNull();
        assertThat(markOf(second)).as("acked").isNull();
    }

    @Test
    void aPairCommitsWithoutWaitingOnlyWhenBothOfItsProjectionsSaySo() throws Exception {
        AtomicReference<String> seen = new AtomicReference<>();
        atPairedRefreshEnd = () -> seen.set(synchronousCommitNow());
        Engine oneSaysSo = pairedEngine(Map.of(ProjectionSettings.key(PROJECTION, ProjectionSettings.SYNCHRONOUS_COMMIT),
                "off"));

        oneSaysSo.drainers().committed(List.of(mark("1"), pairedMark("7")));

        assertThat(seen.get()).as("one of the two set off: as the database says").isEqualTo("on");
        assertThat(log()).containsExactlyInAnyOrder("1", "pair:7");
        oneSaysSo.stop();

        Engine bothSaySo = pairedEngine(Map.of(Settings.SYNCHRONOUS_COMMIT, "off"));

        bothSaySo.drainers().committed(List.of(mark("2"), pairedMark("8")));

        assertThat(seen.get()).as("both").isEqualTo("off");
        assertThat(log()).containsExactlyInAnyOrder("1", "pair:7", "2", "pair:8");
    }

    /** {@code synchronous_commit} in the refresh's transaction, as its commit will read it. */
    private static String synchronousCommitNow() throws SQLException {
        try (Statement statement = JdbcTransactions.current().createStatement();
             ResultSet rows = statement.executeQuery("SELECT current_setting('synchronous_commit')")) {
            rows.next();
            return rows.getString(1);
        }
    }

    @Override
    protected long sessionId(Connection connection) throws SQLException {
        return PostgresPendingQueueTest.backendPid(connection);
    }

    @Override
    protected void kill(Connection observer, long sessionId) throws SQLException {
        try (PreparedStatement terminate = observer.prepareStatement("SELECT pg_terminate_backend(?)")) {
            terminate.setInt(1, Math.toIntExact(sessionId));
            terminate.executeQuery().close();
        }
        awaitGone(observer, "SELECT COUNT(*) FROM pg_stat_activity WHERE pid = ?", sessionId);
    }

    @Override
    protected boolean isWaitingForALock(Connection observer, long sessionId) throws SQLException {
        return PostgresPendingQueueTest.waitsForALock(observer, sessionId);
    }

    /** Until the server has ended the session (its transaction rolled back with it). */
    static void awaitGone(Connection observer, String countSql, long sessionId) throws SQLException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (true) {
            try (PreparedStatement count = observer.prepareStatement(countSql)) {
                count.setLong(1, sessionId);
                try (ResultSet rows = count.executeQuery()) {
                    rows.next();
                    if (rows.getLong(1) == 0) {
                        return;
                    }
                }
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("session " + sessionId + " still there 30 s after it was killed");
            }
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }
}
