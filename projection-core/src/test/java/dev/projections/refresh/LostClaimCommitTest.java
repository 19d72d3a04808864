package dev.projections.refresh;

import dev.projections.RefreshListener;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.projections.MarkKey;
import dev.projections.Projection;
import dev.projections.TenantScope;
import dev.projections.config.Settings;
import dev.projections.store.LiquibaseSchema;
import dev.projections.store.PendingQueue;
import dev.projections.store.Tables;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A claim whose transaction committed although the claimer was told it failed (the connection broke during the
 * commit): the engine releases the claim's token at once, so its marks do not sit out a whole lease unworked.
 */
class LostClaimCommitTest {

    private static final String DATABASE = "lost-claim";
    private static final String URL = "jdbc:h2:mem:" + DATABASE + ";DB_CLOSE_DELAY=-1";
    private static final Instant NOW = Instant.parse("2030-01-01T10:00:00Z");

    private final Tables store = Tables.forProduct("H2");
    private final AtomicBoolean loseNextCommit = new AtomicBoolean();
    private final AtomicBoolean databaseDown = new AtomicBoolean();
    private final AtomicBoolean downAfterLostCommit = new AtomicBoolean();
    private final java.util.concurrent.atomic.AtomicInteger lockWaitsToRunOut = new java.util.concurrent.atomic.AtomicInteger();
    private final java.util.concurrent.atomic.AtomicInteger transactionsRun = new java.util.concurrent.atomic.AtomicInteger();

    private final JdbcTransactions jdbc = new JdbcTransactions(h2(URL));

    /** Plain JDBC transactions that can report a commit as failed after making it, or fail outright. */
    private final Transactions transactions = new Transactions() {
        @Override
        public <T> T inNewTransaction(Duration timeout, Work<T> work) throws Exception {
            if (databaseDown.get()) {
                throw new java.sql.SQLException("connection refused");
            }
            transactionsRun.incrementAndGet();
            T result = jdbc.inNewTransaction(timeout, lockWaitsToRunOut.getAndUpdate(n -> Math.max(0, n - 1)) == 0 ? work
                    : connection -> {
                        // the claim's statement waited for a row lock until lock_timeout cancelled it
                        throw new java.sql.SQLException("canceling statement due to lock timeout", "55P03");
                    });
            if (loseNextCommit.getAndSet(false)) {
                databaseDown.set(downAfterLostCommit.get());
                throw new java.sql.SQLException("I/O error: the commit's answer was lost");
            }
            return result;
        }
    };

    private RefreshEngine engine;

    @BeforeEach
    void schemaAndMarks() throws Exception {
        LiquibaseSchema.freshH2(DATABASE);
        Projection orders = new Projection() {
            @Override
            public String name() {
                return "orders";
            }

            @Override
            public void refresh(String id) {
            }
        };
        ProjectionCatalog catalog = ProjectionCatalog.of(orders);
        engine = new RefreshEngine(store, transactions, Clock.fixed(NOW, ZoneOffset.UTC), Settings.defaults(),
                new Handoff(100, 1), catalog, TenantScope.NONE, RefreshObservers.of(RefreshListener.NONE, new EngineStats()), null);
        transactions.inNewTransaction(Duration.ofSeconds(5), connection -> {
            store.queue().upsert(connection, List.of(new MarkKey("orders", "", "1"), new MarkKey("orders", "", "2")),
                    PendingQueue.LIVE, NOW);
            return null;
        });
    }

    @Test
    void aClaimReportedFailedAfterItCommittedIsReleasedAtOnce() throws Exception {
        loseNextCommit.set(true);
        assertThatThrownBy(() -> engine.steps().claimDue()).isInstanceOf(DatabaseTroubleException.class);
        assertThat(claimed()).as("marks still leased after the failed claim").isZero();
        assertThat(engine.steps().claimDue()).hasSize(2);
    }

    @Test
    void withTheDatabaseStillDownTheLeaseRemainsTheFallback() throws Exception {
        loseNextCommit.set(true);
        downAfterLostCommit.set(true);
        assertThatThrownBy(() -> engine.steps().claimDue()).isInstanceOf(DatabaseTroubleException.class)
                .satisfies(failure -> assertThat(failure.getSuppressed()).hasSize(1));
        databaseDown.set(false);
        assertThat(claimed()).as("held until their lease lapses").isEqualTo(2);
        assertThat(engine.steps().claimDue()).isEmpty();
    }

    /*
     * A claim on PostgreSQL waits for a row lock at most briefly (docs/pitfalls.md #92); the claim whose wait ran out
     * rolled back whole, and is claimed again at once rather than ending the drainer on "database trouble".
     */
    @Test
    void aClaimWhoseLockWaitRanOutRollsBackAndIsClaimedAgainAtOnce() throws Exception {
        lockWaitsToRunOut.set(2);
        transactionsRun.set(0);
        assertThat(engine.steps().claimDue()).as("claimed on the third try").hasSize(2);
        assertThat(transactionsRun).hasValue(3);
        assertThat(claimed()).isEqualTo(2);
    }

    @Test
    void aClaimWhoseLockWaitKeepsRunningOutIsTheDatabasesTroubleAfterAFewTries() throws Exception {
        lockWaitsToRunOut.set(100);
        transactionsRun.set(0);
        assertThatThrownBy(() -> engine.steps().claimDue()).isInstanceOf(DatabaseTroubleException.class)
                .hasMessageContaining("lock timeout");
        assertThat(transactionsRun).hasValue(3);
        assertThat(claimed()).as("nothing claimed by the rolled-back tries").isZero();
    }

    private long claimed() throws Exception {
        try (Connection connection = DriverManager.getConnection(URL, "sa", "");
             Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery(
                     "SELECT COUNT(*) FROM projection_pending WHERE claim_token IS NOT NULL")) {
            rows.next();
            return rows.getLong(1);
        }
    }

    static javax.sql.DataSource h2(String url) {
        org.h2.jdbcx.JdbcDataSource dataSource = new org.h2.jdbcx.JdbcDataSource();
        dataSource.setURL(url);
        dataSource.setUser("sa");
        return dataSource;
    }
}
