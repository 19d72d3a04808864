package dev.projections.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.projections.MarkKey;
import dev.projections.RebuildProgress;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The contract of {@link RebuildStore} (docs/contract.md §7), run against every database: one running run per projection and
 * tenant, and an honest end state — a run never reports FINISHED while rebuild marks of it remain.
 */
abstract class RebuildStoreContract {

    static final Instant T0 = Instant.parse("2030-01-01T10:00:00Z");
    static final String ORDERS = "order-search";

    protected abstract Connection connect() throws SQLException;

    private final RebuildStore runs = new RebuildStore();
    private final PendingStore pending = pendingStore();

    protected abstract PendingStore pendingStore();

    @BeforeEach
    void emptyTables() throws SQLException {
        try (Connection connection = connect(); Statement statement = connection.createStatement()) {
            statement.executeUpdate("DELETE FROM projection_rebuild");
            statement.executeUpdate("DELETE FROM projection_pending");
        }
    }

    @Test
    void aSecondRunOfTheSameProjectionAndTenantIsRefusedWhileTheFirstRuns() throws Exception {
        try (Connection connection = connect()) {
            String first = runs.start(connection, ORDERS, "acme", T0);
            assertThatThrownBy(() -> runs.start(connection, ORDERS, "acme", T0))
                    .isInstanceOf(RebuildAlreadyRunningException.class).hasMessageContaining(first);
            assertThat(runs.start(connection, ORDERS, "other", T0)).as("another tenant may run").isNotEqualTo(first);
        }
    }

    @Test
    void whileOneStepperHoldsTheOldestRunAnotherLeasesTheNextWithoutWaitingForIt() throws Exception {
        String older;
        String newer;
        try (Connection connection = connect()) {
            older = runs.start(connection, ORDERS, "a", T0);
            newer = runs.start(connection, ORDERS, "b", T0.plusSeconds(1));
        }
        java.util.concurrent.ExecutorService thread = java.util.concurrent.Executors.newSingleThreadExecutor();
        try (Connection first = connect(); Connection second = connect()) {
            first.setAutoCommit(false);
            second.setAutoCommit(false);
            assertThat(runs.lease(first, List.of(ORDERS), T0.plusSeconds(2), Duration.ofSeconds(30), "first")
                    .orElseThrow().runId()).as("the oldest runnable run").isEqualTo(older);

            // the first stepper's lease is not committed: its row stays locked until the second has its answer
            java.util.concurrent.Future<java.util.Optional<RebuildRun>> leased = thread.submit(() ->
                    runs.lease(second, List.of(ORDERS), T0.plusSeconds(2), Duration.ofSeconds(30), "second"));
            assertThat(leased.get(20, java.util.concurrent.TimeUnit.SECONDS).orElseThrow().runId())
                    .as("the next run, without waiting for the locked one").isEqualTo(newer);
            second.commit();
            first.commit();
        } finally {
            thread.shutdownNow();
        }
        try (Connection connection = connect()) {
            assertThat(runs.lease(connection, List.of(ORDERS), T0.plusSeconds(3), Duration.ofSeconds(30), "third"))
                    .as("both leased until their lease ends").isEmpty();
        }
    }

    @Test
    void anExhaustedRunWithNothingLeftFinishes() throws Exception {
        try (Connection connection = connect()) {
            String runId = exhaustedRun(connection, "a");

            assertThat(runs.finishExhausted(connection, T0.plusSeconds(5))).isEqualTo(1);

            RebuildProgress progress = runs.progress(connection, runId, T0.plusSeconds(5)).orElseThrow();
            assertThat(progress.state()).isEqualTo(RebuildProgress.FINISHED);
            assertThat(progress.remaining()).isZero();
            assertThat(progress.failing()).isZero();
        }
    }

    @Test
    void anExhaustedRunWhoseOnlyRemainingMarksFailFinishesSayingHowManyFail() throws Exception {
        try (Connection connection = connect()) {
            String runId = exhaustedRun(connection, "a");
            MarkKey failing = new MarkKey(ORDERS, "a", "7");
            pending.queue().upsert(connection, List.of(failing), PendingQueue.REBUILD, T0);
            ClaimedMark claimed = pending.queue().claimKeys(connection, List.of(failing), List.of(ORDERS), T0,
                    Duration.ofMinutes(2), "token").get(0);
            pending.queue().recordFailure(connection, claimed, "boom", T0, T0.plusSeconds(5));

            assertThat(runs.finishExhausted(connection, T0.plusSeconds(1))).isEqualTo(1);

            RebuildProgress progress = runs.progress(connection, runId, T0.plusSeconds(1)).orElseThrow();
            assertThat(progress.state()).as("not FINISHED with remaining > 0").isEqualTo(RebuildProgress.FINISHED_FAILING);
            assertThat(progress.remaining()).isEqualTo(1);
            assertThat(progress.failing()).isEqualTo(1);
            assertThat(progress.finished()).isTrue();
            assertThat(runs.start(connection, ORDERS, "a", T0.plusSeconds(2))).as("a new run may start").isNotBlank();
        }
    }

    @Test
    void anExhaustedRunWithMarksStillWaitingKeepsRunning() throws Exception {
        try (Connection connection = connect()) {
            String runId = exhaustedRun(connection, "a");
            pending.queue().upsert(connection, List.of(new MarkKey(ORDERS, "a", "8")), PendingQueue.REBUILD, T0);

            assertThat(runs.finishExhausted(connection, T0.plusSeconds(1))).isZero();

            RebuildProgress progress = runs.progress(connection, runId, T0.plusSeconds(1)).orElseThrow();
            assertThat(progress.state()).isEqualTo(RebuildProgress.RUNNING);
            assertThat(progress.remaining()).isEqualTo(1);
            assertThat(progress.failing()).isZero();
        }
    }

    /** A run of {@code tenant} whose single step marked everything its ids gave. */
    private String exhaustedRun(Connection connection, String tenant) throws SQLException {
        String runId = runs.start(connection, ORDERS, tenant, T0);
        RebuildRun run = runs.lease(connection, List.of(ORDERS), T0, Duration.ofMinutes(2), "step").orElseThrow();
        assertThat(run.runId()).isEqualTo(runId);
        assertThat(runs.advance(connection, run, "9", 3, true)).isTrue();
        return runId;
    }
}
