package dev.projections.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.projections.MarkKey;
import dev.projections.RebuildProgress;
import dev.projections.RebuildScope;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The contract of the rebuild tables ({@link RebuildRuns}, {@link RebuildPartitions}, {@link RebuildMarks}, {@link RebuildHistory}) (docs/contract.md §7), run against every database: one running run per projection and
 * tenant, and an honest end state — a run never reports FINISHED while rebuild marks of it remain.
 */
abstract class RebuildRunsContract {

    static final Instant T0 = Instant.parse("2030-01-01T10:00:00Z");
    static final String ORDERS = "order-search";

    protected abstract Connection connect() throws SQLException;

    private final Tables pending = pendingStore();
    private final RebuildRuns runs = pending.rebuildRuns();
    private final RebuildPartitions partitions = pending.rebuildPartitions();
    private final RebuildMarks marks = pending.rebuildMarks();
    private final RebuildHistory history = pending.rebuildHistory();

    protected abstract Tables pendingStore();

    @BeforeEach
    void emptyTables() throws SQLException {
        try (Connection connection = connect(); Statement statement = connection.createStatement()) {
            statement.executeUpdate("DELETE FROM projection_rebuild_partition");
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
    void aRunStartedOutsideATransactionIsWrittenWholeOrNotAtAll() throws Exception {
        try (Connection connection = connect()) {
            Connection failingPartitions = (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(),
                    new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                        if (method.getName().equals("prepareStatement") && args[0] instanceof String sql
                                && sql.contains("INSERT INTO") && sql.contains("projection_rebuild_partition")) {
                            throw new SQLException("the partitions' insert failed");
                        }
                        try {
                            return method.invoke(connection, args);
                        } catch (InvocationTargetException e) {
                            throw e.getCause();
                        }
                    });
            assertThat(connection.getAutoCommit()).isTrue();

            assertThatThrownBy(() -> runs.start(failingPartitions, ORDERS, "acme", T0))
                    .hasMessageContaining("the partitions' insert failed");

            assertThat(connection.getAutoCommit()).as("given back as it came").isTrue();
        }
        try (Connection connection = connect(); Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery("SELECT COUNT(*) FROM projection_rebuild")) {
            rows.next();
            assertThat(rows.getLong(1)).as("no run without its partitions").isZero();
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
            assertThat(partitions.lease(first, List.of(ORDERS), T0.plusSeconds(2), Duration.ofSeconds(30), "first")
                    .orElseThrow().runId()).as("the oldest runnable run").isEqualTo(older);

            // the first stepper's lease is not committed: its row stays locked until the second has its answer
            java.util.concurrent.Future<java.util.Optional<RebuildRun>> leased = thread.submit(() ->
                    partitions.lease(second, List.of(ORDERS), T0.plusSeconds(2), Duration.ofSeconds(30), "second"));
            assertThat(leased.get(20, java.util.concurrent.TimeUnit.SECONDS).orElseThrow().runId())
                    .as("the next run, without waiting for the locked one").isEqualTo(newer);
            second.commit();
            first.commit();
        } finally {
            thread.shutdownNow();
        }
        try (Connection connection = connect()) {
            assertThat(partitions.lease(connection, List.of(ORDERS), T0.plusSeconds(3), Duration.ofSeconds(30), "third"))
                    .as("both leased until their lease ends").isEmpty();
        }
    }

    @Test
    void anExhaustedRunWithNothingLeftFinishes() throws Exception {
        try (Connection connection = connect()) {
            String runId = exhaustedRun(connection, "a");

            assertThat(runs.finishExhausted(connection, T0.plusSeconds(5))).hasSize(1);

            RebuildProgress progress = history.progress(connection, runId, T0.plusSeconds(5)).orElseThrow();
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
            pending.claims().recordFailure(connection, claimed, "boom", T0, T0.plusSeconds(5));

            assertThat(runs.finishExhausted(connection, T0.plusSeconds(1))).hasSize(1);

            RebuildProgress progress = history.progress(connection, runId, T0.plusSeconds(1)).orElseThrow();
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

            assertThat(runs.finishExhausted(connection, T0.plusSeconds(1))).isEmpty();

            RebuildProgress progress = history.progress(connection, runId, T0.plusSeconds(1)).orElseThrow();
            assertThat(progress.state()).isEqualTo(RebuildProgress.RUNNING);
            assertThat(progress.remaining()).isEqualTo(1);
            assertThat(progress.failing()).isZero();
        }
    }

    @Test
    void anEarlierRunLeftFailingKeepsItsOwnCountsWhileANewerRunOfTheSameTenantMarks() throws Exception {
        try (Connection connection = connect()) {
            String first = exhaustedRun(connection, "a");
            List<MarkKey> failing = List.of(new MarkKey(ORDERS, "a", "f1"), new MarkKey(ORDERS, "a", "f2"));
            pending.queue().upsert(connection, failing, PendingQueue.REBUILD, first, T0);
            for (ClaimedMark claimed : pending.queue().claimKeys(connection, failing, List.of(ORDERS), T0,
                    Duration.ofMinutes(2), "token")) {
                pending.claims().recordFailure(connection, claimed, "boom", T0, T0.plusSeconds(60));
            }
            assertThat(runs.finishExhausted(connection, T0.plusSeconds(1))).hasSize(1);

            String second = runs.start(connection, ORDERS, "a", T0.plusSeconds(2));
            List<MarkKey> page = java.util.stream.IntStream.range(0, 100)
                    .mapToObj(i -> new MarkKey(ORDERS, "a", "p" + i)).toList();
            pending.queue().upsert(connection, page, PendingQueue.REBUILD, second, T0.plusSeconds(3));

            RebuildProgress earlier = history.progress(connection, first, T0.plusSeconds(4)).orElseThrow();
            assertThat(earlier.state()).isEqualTo(RebuildProgress.FINISHED_FAILING);
            assertThat(earlier.remaining()).as("its own two failing marks, not the newer run's page").isEqualTo(2);
            assertThat(earlier.failing()).isEqualTo(2);
            RebuildProgress newer = history.progress(connection, second, T0.plusSeconds(4)).orElseThrow();
            assertThat(newer.remaining()).as("its page, not the earlier run's failing marks").isEqualTo(100);
        }
    }

    @Test
    void aCancelDeletesTheRunsOwnMarksWhicheverInstancesClockMarkedThemAndNoOtherRunsMarks() throws Exception {
        try (Connection connection = connect()) {
            // an earlier failed run's waiting mark, written by an instance 5 s ahead: after this run's start by its clock
            String earlier = runs.start(connection, ORDERS, "a", T0.minusSeconds(60));
            runs.cancel(connection, earlier, "ops", T0.minusSeconds(50));
            assertThat(marks.purgeCancelled(connection, earlier, T0.minusSeconds(50), 100)).isZero();
            MarkKey leftOver = new MarkKey(ORDERS, "a", "left-over");
            pending.queue().upsert(connection, List.of(leftOver), PendingQueue.REBUILD, earlier, T0.plusSeconds(1));

            String runId = runs.start(connection, ORDERS, "a", T0); // started by instance A at A-time T0
            // its first page, stepped by instance B 4 s behind A: marked at B-time T0 - 2 s
            List<MarkKey> page = List.of(new MarkKey(ORDERS, "a", "1"), new MarkKey(ORDERS, "a", "2"));
            pending.queue().upsert(connection, page, PendingQueue.REBUILD, runId, T0.minusSeconds(2));
            assertThat(runs.cancel(connection, runId, "alice", T0.plusSeconds(3))).isTrue();

            assertThat(marks.purgeCancelled(connection, runId, T0.plusSeconds(4), 100)).isEqualTo(2);
            assertThat(entityIds(connection)).as("the run's page went, the earlier run's mark stayed")
                    .containsExactly("left-over");
        }
    }

    @Test
    void aRunsPartitionsCoverItsScopeOnceAndAreLeasedEachByItsOwnStepper() throws Exception {
        RebuildScope scope = RebuildScope.idRange("100", null);
        try (Connection connection = connect()) {
            String runId = runs.start(connection, ORDERS, "a", scope, List.of("400", "700"), "alice", T0);
            List<RebuildRun> leased = new java.util.ArrayList<>();
            for (String token : List.of("s1", "s2", "s3")) {
                leased.add(partitions.lease(connection, List.of(ORDERS), T0, Duration.ofMinutes(1), token).orElseThrow());
            }
            assertThat(partitions.lease(connection, List.of(ORDERS), T0, Duration.ofMinutes(1), "s4")).as("all three held").isEmpty();
            assertThat(leased).extracting(RebuildRun::partition).containsExactly(0, 1, 2);
            assertThat(leased).extracting(RebuildRun::cursor).as("each starts after the bound before it")
                    .containsExactly(null, "400", "700");
            assertThat(leased).extracting(run -> run.scope().to()).as("and ends at its own, the last at the scope's end")
                    .containsExactly("400", "700", null);
            assertThat(leased).extracting(run -> run.scope().from()).containsOnly("100");

            RebuildProgress progress = history.progress(connection, runId, T0).orElseThrow();
            assertThat(progress.partitions()).isEqualTo(3);
            assertThat(progress.partitionsDone()).isZero();
            assertThat(progress.scope()).isEqualTo(scope);
            assertThat(progress.startedBy()).isEqualTo("alice");
            assertThat(history.partitions(connection, runId)).extracting(RebuildPartition::held).containsOnly(true);
        }
    }

    @Test
    void aRunsIdsAreAllMarkedOnlyWhenItsLastPartitionIsExhaustedWhicheverOrderTheyEndIn() throws Exception {
        try (Connection connection = connect()) {
            String runId = runs.start(connection, ORDERS, "a", RebuildScope.everything(), List.of("5"), null, T0);
            RebuildRun first = partitions.lease(connection, List.of(ORDERS), T0, Duration.ofMinutes(1), "s1").orElseThrow();
            RebuildRun second = partitions.lease(connection, List.of(ORDERS), T0, Duration.ofMinutes(1), "s2").orElseThrow();

            assertThat(runs.advance(connection, second, "9", 4, true)).isTrue();
            assertThat(runs.finishExhausted(connection, T0.plusSeconds(1))).as("partition 0 still lists ids").isEmpty();
            assertThat(runs.hasWork(connection, List.of(ORDERS), T0.plusSeconds(61))).as("partition 0 once its lease lapsed").isTrue();

            assertThat(runs.advance(connection, first, "5", 5, true)).isTrue();
            RebuildProgress beforeFinish = history.progress(connection, runId, T0.plusSeconds(2)).orElseThrow();
            assertThat(beforeFinish.marked()).as("the sum of its partitions").isEqualTo(9);
            assertThat(beforeFinish.partitionsDone()).isEqualTo(2);
            assertThat(runs.finishExhausted(connection, T0.plusSeconds(2))).hasSize(1);
            assertThat(history.progress(connection, runId, T0.plusSeconds(2)).orElseThrow().state())
                    .isEqualTo(RebuildProgress.FINISHED);
        }
    }

    @Test
    void aPartitionWhoseStepperDiedIsTakenOverFromItsLastCursorOnceTheLeaseLapses() throws Exception {
        try (Connection connection = connect()) {
            String runId = runs.start(connection, ORDERS, "a", RebuildScope.everything(), List.of("5"), null, T0);
            RebuildRun first = partitions.lease(connection, List.of(ORDERS), T0, Duration.ofSeconds(30), "s1").orElseThrow();
            assertThat(runs.advance(connection, first, "3", 3, false)).isTrue();
            RebuildRun again = partitions.lease(connection, List.of(ORDERS), T0.plusSeconds(1), Duration.ofSeconds(30), "s1b")
                    .orElseThrow();
            assertThat(again.partition()).as("the oldest free partition").isZero();
            // s1b dies here: no advance. Partition 1 is leased meanwhile and ends normally.
            RebuildRun other = partitions.lease(connection, List.of(ORDERS), T0.plusSeconds(1), Duration.ofSeconds(30), "s2")
                    .orElseThrow();
            assertThat(runs.advance(connection, other, "8", 3, true)).isTrue();
            assertThat(partitions.lease(connection, List.of(ORDERS), T0.plusSeconds(20), Duration.ofSeconds(30), "s3"))
                    .as("partition 0's lease still runs").isEmpty();

            RebuildRun takenOver = partitions.lease(connection, List.of(ORDERS), T0.plusSeconds(31), Duration.ofSeconds(30), "s3")
                    .orElseThrow();
            assertThat(takenOver.partition()).isZero();
            assertThat(takenOver.cursor()).as("resumes from the last committed step").isEqualTo("3");
            assertThat(runs.advance(connection, again, "4", 1, false)).as("the dead owner's late step is refused").isFalse();
            assertThat(runs.advance(connection, takenOver, "5", 2, true)).isTrue();
            RebuildProgress progress = history.progress(connection, runId, T0.plusSeconds(32)).orElseThrow();
            assertThat(progress.takeovers()).isEqualTo(1);
            assertThat(progress.marked()).isEqualTo(8);
            assertThat(progress.partitionsDone()).isEqualTo(2);
        }
    }

    @Test
    void aCancelledRunLosesItsRebuildMarksButNotThoseALiveChangeMadeAgainAndOnlyThenFreesItsTenant() throws Exception {
        try (Connection connection = connect()) {
            String runId = runs.start(connection, ORDERS, "a", T0);
            List<MarkKey> keys = java.util.stream.IntStream.range(0, 7)
                    .mapToObj(i -> new MarkKey(ORDERS, "a", "id-" + i)).toList();
            pending.queue().upsert(connection, keys, PendingQueue.REBUILD, T0);
            pending.queue().upsert(connection, List.of(keys.get(3)), PendingQueue.LIVE, T0.plusSeconds(1));
            pending.queue().upsert(connection, List.of(new MarkKey(ORDERS, "b", "other-tenant")), PendingQueue.REBUILD, T0);

            assertThat(runs.cancel(connection, runId, "alice", T0.plusSeconds(2))).isTrue();
            assertThat(runs.cancel(connection, runId, "bob", T0.plusSeconds(3))).as("once").isFalse();
            assertThatThrownBy(() -> runs.start(connection, ORDERS, "a", T0.plusSeconds(3)))
                    .as("not before its marks are gone").isInstanceOf(RebuildAlreadyRunningException.class);

            assertThat(marks.purgeCancelled(connection, null, T0.plusSeconds(3), 4)).isEqualTo(4);
            assertThat(marks.purgeCancelled(connection, null, T0.plusSeconds(3), 4)).as("the last 2 of 6").isEqualTo(2);
            assertThat(marks.purgeCancelled(connection, null, T0.plusSeconds(3), 4)).as("nothing left").isEqualTo(-1);

            assertThat(entityIds(connection)).containsExactlyInAnyOrder("id-3", "other-tenant");
            RebuildProgress progress = history.progress(connection, runId, T0.plusSeconds(4)).orElseThrow();
            assertThat(progress.state()).isEqualTo(RebuildProgress.CANCELLED);
            assertThat(progress.cancelledBy()).isEqualTo("alice");
            assertThat(progress.remaining()).as("an ended run counts nothing of later runs").isZero();
            assertThat(runs.start(connection, ORDERS, "a", T0.plusSeconds(5))).isNotBlank();
        }
    }

    @Test
    void aStepThatCommitsBeforeTheCancelHasItsMarksDeletedAndOneAfterItRollsBack() throws Exception {
        String runId;
        try (Connection connection = connect()) {
            runId = runs.start(connection, ORDERS, "a", RebuildScope.everything(), List.of("m"), null, T0);
        }
        java.util.concurrent.ExecutorService thread = java.util.concurrent.Executors.newSingleThreadExecutor();
        try (Connection early = connect(); Connection late = connect(); Connection operator = connect()) {
            for (Connection c : List.of(early, late, operator)) {
                c.setAutoCommit(false);
                pending.beginEngineTransaction(c);
            }
            RebuildRun one = partitions.lease(early, List.of(ORDERS), T0, Duration.ofMinutes(1), "early").orElseThrow();
            early.commit();
            RebuildRun two = partitions.lease(late, List.of(ORDERS), T0, Duration.ofMinutes(1), "late").orElseThrow();
            late.commit();

            // the early step has advanced, not committed: it holds the run's row, and the cancel waits for it
            pending.queue().upsert(early, List.of(new MarkKey(ORDERS, "a", "e1"), new MarkKey(ORDERS, "a", "e2")),
                    PendingQueue.REBUILD, T0);
            assertThat(runs.advance(early, one, "e2", 2, false)).isTrue();
            java.util.concurrent.Future<Boolean> cancelled = thread.submit(() -> {
                boolean done = runs.cancel(operator, runId, "alice", T0.plusSeconds(1));
                operator.commit();
                return done;
            });
            assertThatThrownBy(() -> cancelled.get(500, java.util.concurrent.TimeUnit.MILLISECONDS))
                    .as("the cancel waits for the step that holds the run").isInstanceOf(java.util.concurrent.TimeoutException.class);
            early.commit();
            assertThat(cancelled.get(20, java.util.concurrent.TimeUnit.SECONDS)).isTrue();

            // the late step comes after the cancel: it finds the run no longer running, and rolls back
            pending.queue().upsert(late, List.of(new MarkKey(ORDERS, "a", "z1")), PendingQueue.REBUILD, T0);
            assertThat(runs.advance(late, two, "z1", 1, false)).isFalse();
            late.rollback();

            assertThat(marks.purgeCancelled(operator, runId, T0.plusSeconds(2), 100)).as("the early step's marks").isEqualTo(2);
            operator.commit();
        } finally {
            thread.shutdownNow();
        }
        try (Connection connection = connect()) {
            assertThat(entityIds(connection)).isEmpty();
            assertThat(partitions.lease(connection, List.of(ORDERS), T0.plusSeconds(120), Duration.ofMinutes(1), "next"))
                    .as("a cancelled run's partitions are never leased again").isEmpty();
        }
    }

    @Test
    void aCancelKeepsFailingAndParkedMarksOfEarlierRunsAndClaimedMarksUntilTheirAck() throws Exception {
        try (Connection connection = connect()) {
            // an earlier run left a failing mark; a mark first marked before this run belongs to nobody's cancel
            MarkKey failing = new MarkKey(ORDERS, "a", "failing");
            pending.queue().upsert(connection, List.of(failing), PendingQueue.REBUILD, T0);
            ClaimedMark failed = pending.queue().claimKeys(connection, List.of(failing), List.of(ORDERS), T0,
                    Duration.ofMinutes(2), "f").get(0);
            pending.claims().recordFailure(connection, failed, "boom", T0, T0.plusSeconds(5));
            pending.queue().upsert(connection, List.of(new MarkKey(ORDERS, "a", "older")), PendingQueue.REBUILD, T0);

            String runId = runs.start(connection, ORDERS, "a", T0.plusSeconds(10));
            MarkKey claimed = new MarkKey(ORDERS, "a", "claimed");
            pending.queue().upsert(connection, List.of(claimed, new MarkKey(ORDERS, "a", "waiting")), PendingQueue.REBUILD,
                    T0.plusSeconds(11));
            ClaimedMark held = pending.queue().claimKeys(connection, List.of(claimed), List.of(ORDERS),
                    T0.plusSeconds(12), Duration.ofMinutes(2), "worker").get(0);
            assertThat(runs.cancel(connection, runId, "alice", T0.plusSeconds(13))).isTrue();

            assertThat(marks.purgeCancelled(connection, runId, T0.plusSeconds(14), 100)).isEqualTo(1);
            assertThat(entityIds(connection)).as("only the waiting mark of this run went")
                    .containsExactlyInAnyOrder("failing", "older", "claimed");
            assertThatThrownBy(() -> runs.start(connection, ORDERS, "a", T0.plusSeconds(15)))
                    .as("reserved while its claimed mark is refreshed").isInstanceOf(RebuildAlreadyRunningException.class);

            assertThat(pending.queue().ack(connection, held, T0.plusSeconds(15))).isEqualTo(AckOutcome.SUCCESS);
            assertThat(marks.purgeCancelled(connection, runId, T0.plusSeconds(16), 100)).isZero();
            assertThat(runs.start(connection, ORDERS, "a", T0.plusSeconds(17))).as("free once it was acked").isNotBlank();
            assertThat(entityIds(connection)).containsExactlyInAnyOrder("failing", "older");
        }
    }

    @Test
    void aPurgeNeverWaitsForAMarkACommitHoldsAndKeepsTheTenantReservedUntilThatMarkIsSettled() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(pending.dialect() != Dialect.H2,
                "H2 locks every row a limited locking read scans: its purge reads candidates unlocked and waits");
        String runId;
        try (Connection connection = connect()) {
            runId = runs.start(connection, ORDERS, "a", T0);
            pending.queue().upsert(connection, List.of(new MarkKey(ORDERS, "a", "501"), new MarkKey(ORDERS, "a", "6"),
                    new MarkKey(ORDERS, "a", "7")), PendingQueue.REBUILD, T0);
            runs.cancel(connection, runId, "alice", T0.plusSeconds(1));
        }
        java.util.concurrent.ExecutorService thread = java.util.concurrent.Executors.newSingleThreadExecutor();
        try (Connection business = connect(); Connection purger = connect()) {
            business.setAutoCommit(false);
            purger.setAutoCommit(false);
            pending.beginEngineTransaction(purger);
            // a user's commit is under way: it changed "6" back to a live mark and holds it
            pending.queue().upsert(business, List.of(new MarkKey(ORDERS, "a", "6")), PendingQueue.LIVE, T0.plusSeconds(2));

            java.util.concurrent.Future<Integer> purged = thread.submit(() -> {
                int deleted = marks.purgeCancelled(purger, runId, T0.plusSeconds(3), 100);
                purger.commit();
                return deleted;
            });
            assertThat(purged.get(20, java.util.concurrent.TimeUnit.SECONDS)).as("501 and 7, without waiting for 6")
                    .isEqualTo(2);
            try (Connection other = connect()) {
                assertThatThrownBy(() -> runs.start(other, ORDERS, "a", T0.plusSeconds(4)))
                        .as("6 is not settled yet").isInstanceOf(RebuildAlreadyRunningException.class);
            }
            // the user's commit goes through: the purge held nothing it wanted
            pending.queue().upsert(business, List.of(new MarkKey(ORDERS, "a", "501")), PendingQueue.LIVE, T0.plusSeconds(5));
            business.commit();
        } finally {
            thread.shutdownNow();
        }
        try (Connection connection = connect()) {
            assertThat(marks.purgeCancelled(connection, runId, T0.plusSeconds(6), 100)).isZero();
            assertThat(entityIds(connection)).as("the live marks stay").containsExactlyInAnyOrder("6", "501");
            assertThat(runs.start(connection, ORDERS, "a", T0.plusSeconds(7))).isNotBlank();
        }
    }

    @Test
    void aRunIsNotFinishedWhileItsLastPageIsPendingEvenWhileAnotherFinisherHoldsARun() throws Exception {
        String held;
        String last;
        try (Connection connection = connect()) {
            held = exhaustedRun(connection, "held");
            last = runs.start(connection, ORDERS, "last", T0);
        }
        try (Connection other = connect(); Connection step = connect(); Connection finisher = connect()) {
            other.setAutoCommit(false);
            step.setAutoCommit(false);
            finisher.setAutoCommit(false);
            for (Connection c : List.of(other, step, finisher)) {
                pending.beginEngineTransaction(c);
            }
            // another finisher is ending "held" right now
            try (Statement lock = other.createStatement()) {
                lock.executeQuery("SELECT run_id FROM projection_rebuild WHERE run_id = '" + held + "' FOR UPDATE").close();
            }
            RebuildRun run = partitions.lease(step, List.of(ORDERS), T0, Duration.ofMinutes(1), "s").orElseThrow();
            step.commit();
            pending.queue().upsert(step, List.of(new MarkKey(ORDERS, "last", "z")), PendingQueue.REBUILD, T0);
            assertThat(runs.advance(step, run, "z", 1, true)).isTrue();
            step.commit();

            assertThat(runs.finishExhausted(finisher, T0.plusSeconds(1))).as("neither: one is held, one has its page")
                    .isEmpty();
            finisher.commit();
            other.rollback();
            assertThat(history.progress(finisher, last, T0.plusSeconds(1)).orElseThrow().state())
                    .isEqualTo(RebuildProgress.RUNNING);
        }
    }

    /** The lease query of the release before partitions, as an instance not yet upgraded runs it. */
    static final String PRE_PARTITION_LEASE = """
            SELECT run_id FROM projection_rebuild
             WHERE state = 'RUNNING' AND exhausted = FALSE AND projection IN (?)
               AND (lease_until IS NULL OR lease_until <= ?)
            """;

    @Test
    void anInstanceOfThePreviousReleaseNeverLeasesAPartitionedRun() throws Exception {
        try (Connection connection = connect()) {
            runs.start(connection, ORDERS, "a", RebuildScope.idRange("1", "9"), List.of("5"), null, T0);
            try (java.sql.PreparedStatement old = connection.prepareStatement(PRE_PARTITION_LEASE)) {
                old.setString(1, ORDERS);
                old.setObject(2, pending.dialect().timestamp(T0.plus(Duration.ofDays(3650))));
                try (java.sql.ResultSet rows = old.executeQuery()) {
                    assertThat(rows.next()).as("its run lease never lapses").isFalse();
                }
            }
        }
    }

    @Test
    void aRunAPreviousReleaseStartedWithoutPartitionsIsAdoptedOnceItsOwnLeaseLapsedAndOnlyOnce() throws Exception {
        Dialect dialect = pending.dialect();
        try (Connection connection = connect(); java.sql.PreparedStatement insert = connection.prepareStatement("""
                INSERT INTO projection_rebuild (run_id, projection, tenant_id, state, cursor_id, marked, exhausted,
                                                started_at, running_projection, running_tenant, owner_token, lease_until)
                VALUES (?, ?, ?, 'RUNNING', ?, 7, FALSE, ?, ?, ?, 'old-step', ?)""")) {
            // as the previous release starts and steps a run: the run row only, leased by its own token
            for (Object[] run : new Object[][] {{"lapsed", "a", T0.plusSeconds(10)}, {"held", "b", T0.plusSeconds(90)}}) {
                insert.setString(1, (String) run[0]);
                insert.setString(2, ORDERS);
                insert.setString(3, (String) run[1]);
                insert.setString(4, "7");
                insert.setObject(5, dialect.timestamp(T0));
                insert.setString(6, ORDERS);
                insert.setString(7, (String) run[1]);
                insert.setObject(8, dialect.timestamp((Instant) run[2]));
                insert.executeUpdate();
            }
            Instant now = T0.plusSeconds(60);
            assertThat(runs.hasWork(connection, List.of(ORDERS), now)).as("nothing to lease before adoption").isFalse();

            assertThat(runs.adoptLegacyRuns(connection, now)).as("the lapsed one").isEqualTo(1);
            assertThat(runs.adoptLegacyRuns(connection, now)).as("once").isZero();

            RebuildRun run = partitions.lease(connection, List.of(ORDERS), now, Duration.ofMinutes(2), "new").orElseThrow();
            assertThat(run.runId()).isEqualTo("lapsed");
            assertThat(run.cursor()).as("from the previous release's cursor").isEqualTo("7");
            assertThat(partitions.lease(connection, List.of(ORDERS), now, Duration.ofMinutes(2), "other"))
                    .as("the held one is still the previous release's").isEmpty();
            assertThat(runs.advance(connection, run, "9", 2, true)).isTrue();
            assertThat(runs.finishExhausted(connection, now)).hasSize(1);
            RebuildProgress done = history.progress(connection, "lapsed", now).orElseThrow();
            assertThat(done.state()).isEqualTo(RebuildProgress.FINISHED);
            assertThat(done.marked()).as("7 by the previous release, 2 since").isEqualTo(9);
        }
    }

    @Test
    void theHistoryListsRunsNewestFirstWithTheirScopeAndEnd() throws Exception {
        try (Connection connection = connect()) {
            String old = runs.start(connection, ORDERS, "a", T0);
            runs.cancel(connection, old, "alice", T0.plusSeconds(1));
            marks.purgeCancelled(connection, old, T0.plusSeconds(1), 100);
            String scoped = runs.start(connection, ORDERS, "a", RebuildScope.filter("region", "EU"), List.of(), "bob",
                    T0.plusSeconds(2));
            String other = runs.start(connection, "customer-stats", "", RebuildScope.changedSince(T0), List.of(), null,
                    T0.plusSeconds(3));

            assertThat(history.history(connection, null, 10, T0.plusSeconds(4))).extracting(RebuildProgress::runId)
                    .containsExactly(other, scoped, old);
            List<RebuildProgress> orders = history.history(connection, ORDERS, 10, T0.plusSeconds(4));
            assertThat(orders).extracting(RebuildProgress::runId).containsExactly(scoped, old);
            assertThat(orders.get(0).scope().filter()).isEqualTo("region=EU");
            assertThat(orders.get(1).state()).isEqualTo(RebuildProgress.CANCELLED);
            assertThat(history.history(connection, null, 1, T0.plusSeconds(4))).hasSize(1);
            assertThat(history.progress(connection, other, T0.plusSeconds(4)).orElseThrow().scope().changedSince())
                    .isEqualTo(T0);
        }
    }

    private static List<String> entityIds(Connection connection) throws SQLException {
        List<String> ids = new java.util.ArrayList<>();
        try (Statement statement = connection.createStatement();
             java.sql.ResultSet rows = statement.executeQuery("SELECT entity_id FROM projection_pending")) {
            while (rows.next()) {
                ids.add(rows.getString(1));
            }
        }
        return ids;
    }

    /** A run of {@code tenant} whose single step marked everything its ids gave. */
    private String exhaustedRun(Connection connection, String tenant) throws SQLException {
        String runId = runs.start(connection, ORDERS, tenant, T0);
        RebuildRun run = partitions.lease(connection, List.of(ORDERS), T0, Duration.ofMinutes(2), "step").orElseThrow();
        assertThat(run.runId()).isEqualTo(runId);
        assertThat(runs.advance(connection, run, "9", 3, true)).isTrue();
        return runId;
    }
}
