package dev.projections.refresh;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.projections.MarkKey;
import dev.projections.Projection;
import dev.projections.TenantScope;
import dev.projections.store.LiquibaseSchema;
import dev.projections.store.PendingQueue;
import dev.projections.store.Tables;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A cancelled run's purge whose lock wait ran out (PostgreSQL's lock_timeout, docs/pitfalls.md #92) rolled back; the
 * purge stays requested and its next pass deletes the marks. Any other failure is the database's trouble.
 */
class CancelledRunPurgeTest {

    private static final String DATABASE = "cancelled-run-purge";
    private static final String URL = "jdbc:h2:mem:" + DATABASE + ";DB_CLOSE_DELAY=-1";
    private static final Instant NOW = Instant.parse("2030-01-01T10:00:00Z");

    private final Tables store = Tables.forProduct("H2");
    private final JdbcTransactions jdbc = new JdbcTransactions(LostClaimCommitTest.h2(URL));
    /** What the next transaction fails with, as the database would have failed its statement. */
    private final AtomicReference<SQLException> failNext = new AtomicReference<>();

    private final Transactions transactions = new Transactions() {
        @Override
        public <T> T inNewTransaction(Duration timeout, Work<T> work) throws Exception {
            SQLException failure = failNext.getAndSet(null);
            return jdbc.inNewTransaction(timeout, failure == null ? work : connection -> {
                throw failure;
            });
        }
    };

    private RebuildStepper stepper;

    @BeforeEach
    void aCancelledRunWithMarks() throws Exception {
        LiquibaseSchema.freshH2(DATABASE);
        Projection pages = new Projection() {
            @Override
            public String name() {
                return "pages";
            }

            @Override
            public void refresh(String id) {
            }
        };
        stepper = new RebuildStepper(store, transactions, Clock.fixed(NOW.plusSeconds(10), ZoneOffset.UTC),
                ProjectionCatalog.of(pages), TenantScope.NONE, projection -> 100, Duration.ofMinutes(2));
        jdbc.inNewTransaction(Duration.ofSeconds(5), connection -> {
            String runId = store.rebuildRuns().start(connection, "pages", "", NOW);
            store.queue().upsert(connection, IntStream.range(0, 5).mapToObj(i -> new MarkKey("pages", "", "id-" + i))
                    .toList(), PendingQueue.REBUILD, NOW);
            return store.rebuildRuns().cancel(connection, runId, "alice", NOW.plusSeconds(1));
        });
    }

    @Test
    void aPurgeWhoseLockWaitRanOutStaysRequestedAndItsNextPassDeletesTheMarks() throws Exception {
        failNext.set(new SQLException("canceling statement due to lock timeout", "55P03"));
        stepper.purgeCancelled();
        assertThat(stepper.purgeRequested()).isTrue();
        assertThat(pending()).isEqualTo(5);

        stepper.purgeCancelled();
        assertThat(pending()).isZero();
        stepper.purgeCancelled(); // finds no cancelled run with marks left
        assertThat(stepper.purgeRequested()).isFalse();
    }

    @Test
    void anyOtherFailureOfThePurgeIsTheDatabasesTrouble() throws Exception {
        failNext.set(new SQLException("syntax error", "42601"));
        assertThatThrownBy(stepper::purgeCancelled).isInstanceOf(DatabaseTroubleException.class);
        assertThat(pending()).isEqualTo(5);
    }

    private long pending() throws SQLException {
        try (Connection connection = DriverManager.getConnection(URL, "sa", "");
             Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery("SELECT COUNT(*) FROM projection_pending")) {
            rows.next();
            return rows.getLong(1);
        }
    }
}
