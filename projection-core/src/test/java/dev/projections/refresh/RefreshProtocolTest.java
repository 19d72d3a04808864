package dev.projections.refresh;

import dev.projections.RefreshOutcome;
import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.MarkKey;
import dev.projections.store.ClaimedMark;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The claim → refresh → ack protocol of docs/contract.md §4 without a server, one interleaving per test, forced with a gate
 * inside the refresh and the engine's clock; the test plays the workers (and the instances: one engine each).
 * The read model is outside the database, so nothing but a new mark repairs a stale write.
 */
class RefreshProtocolTest {

    private static final Duration LEASE = Duration.ofMinutes(2);

    private final ScriptedProjection projection = new ScriptedProjection();
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private EngineHarness harness;
    private RefreshEngine engine;
    private RefreshEngine otherInstance;

    @BeforeEach
    void engines() throws Exception {
        harness = new EngineHarness("refresh-protocol", Map.of("projection.lease-time", "2m",
                "projection.retry-delay", "5s", "projection.max-retry-delay", "20s"), projection);
        engine = harness.newEngine();
        otherInstance = harness.newEngine();
    }

    @AfterEach
    void stopThreads() throws InterruptedException {
        threads.shutdownNow();
        assertThat(threads.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void aRefreshThatWritesAnOutsideReadModelAfterItsLeaseLapsedAndThenFailsMarksTheKeyAgain() throws Exception {
        // worker A reads v1 and stalls; its lease lapses; B refreshes v2; A writes v1 late, then its transaction is
        // rolled back (the reaper) — the failure path finds its claim gone and must re-mark, or v1 stays for ever
        MarkKey key = change("k", "v1");
        ScriptedProjection.Gate gate = projection.gate("k");
        projection.writeThenFail("k");
        List<ClaimedMark> stale = engine.steps().claim(List.of(key));
        Future<?> staleWorker = threads.submit(() -> engine.steps().refresh(stale));
        assertThat(gate.entered.await(30, TimeUnit.SECONDS)).as("A read v1").isTrue();

        harness.clock.advance(LEASE.plusSeconds(1));
        change("k", "v2");
        assertThat(otherInstance.drain()).isFalse();
        assertThat(projection.model.get("k")).isEqualTo("v2");
        assertThat(harness.row(key)).as("B acked").isNull();

        gate.release.countDown();
        staleWorker.get(30, TimeUnit.SECONDS);
        assertThat(projection.model.get("k")).as("A's late write").isEqualTo("v1");
        EngineHarness.Row row = harness.row(key);
        assertThat(row).as("marked again by A's failure path").isNotNull();
        assertThat(row.attempts()).isZero();

        otherInstance.drain();
        assertThat(projection.model.get("k")).as("repaired").isEqualTo("v2");
        assertThat(harness.pending()).isZero();
    }

    @Test
    void theMarksOfADrainersBatchCountAsHeldByThisInstanceUntilTheBatchEnds() throws Exception {
        change("held-1", "v1");
        change("held-2", "v1");
        ScriptedProjection.Gate gate = projection.gate("held-1");
        assertThat(engine.claimsHeld()).isZero();
        Future<Boolean> drainer = threads.submit(() -> engine.drain());
        assertThat(gate.entered.await(30, TimeUnit.SECONDS)).isTrue();

        assertThat(engine.claimsHeld()).as("one batch of both marks, its refresh held").isEqualTo(2);
        assertThat(otherInstance.claimsHeld()).isZero();
        gate.release.countDown();
        drainer.get(30, TimeUnit.SECONDS);
        assertThat(engine.claimsHeld()).isZero();
        assertThat(harness.pending()).isZero();
    }

    @Test
    void aWorkerStalledPastItsLeaseLosesTheKeyAndItsStaleWriteIsRepairedByTheNextRefresh() throws Exception {
        MarkKey key = change("k", "v1");
        ScriptedProjection.Gate gate = projection.gate("k");
        List<ClaimedMark> stale = engine.steps().claim(List.of(key));
        Future<?> staleWorker = threads.submit(() -> engine.steps().refresh(stale));
        assertThat(gate.entered.await(30, TimeUnit.SECONDS)).as("stale worker read v1").isTrue();

        harness.clock.advance(LEASE.plusSeconds(1));
        change("k", "v2");
        List<ClaimedMark> next = otherInstance.steps().claim(List.of(key));
        assertThat(next).as("the lapsed lease lets another worker claim").hasSize(1);
        otherInstance.steps().refresh(next);
        assertThat(projection.model.get("k")).isEqualTo("v2");

        gate.release.countDown();
        staleWorker.get(30, TimeUnit.SECONDS);
        assertThat(projection.model.get("k")).as("the stale worker overwrote v2").isEqualTo("v1");
        assertThat(harness.row(key)).as("its missed ack marked the key again").isNotNull();

        engine.steps().refresh(engine.steps().claim(List.of(key)));
        assertThat(projection.model.get("k")).isEqualTo("v2");
        assertThat(harness.pending()).isZero();
        assertThat(harness.outcomes(key))
                .containsExactly(RefreshOutcome.SUCCESS, RefreshOutcome.REPEATED, RefreshOutcome.SUCCESS);
    }

    @Test
    void aKeyMarkedDuringAValidLeaseStaysWithItsHolderAndIsDueAgainTheMomentItsAckMisses() throws Exception {
        MarkKey key = change("k", "v1");
        ScriptedProjection.Gate gate = projection.gate("k");
        List<ClaimedMark> holder = engine.steps().claim(List.of(key));
        Future<?> worker = threads.submit(() -> engine.steps().refresh(holder));
        assertThat(gate.entered.await(30, TimeUnit.SECONDS)).isTrue();

        change("k", "v2");
        assertThat(otherInstance.steps().claim(List.of(key))).as("a valid lease is never claimed by another").isEmpty();

        gate.release.countDown();
        worker.get(30, TimeUnit.SECONDS);
        EngineHarness.Row row = harness.row(key);
        assertThat(row.claimToken()).as("claim released").isNull();
        assertThat(row.availableAt()).as("due at once, not a lease later").isBeforeOrEqualTo(harness.clock.instant());

        List<ClaimedMark> again = otherInstance.steps().claim(List.of(key));
        assertThat(again).as("claimable right away").hasSize(1);
        otherInstance.steps().refresh(again);
        assertThat(projection.model.get("k")).isEqualTo("v2");
        assertThat(harness.pending()).isZero();
        assertThat(projection.callsOf("k")).as("exactly one more refresh").isEqualTo(2);
        assertThat(harness.outcomes(key)).containsExactly(RefreshOutcome.REPEATED, RefreshOutcome.SUCCESS);
    }

    @Test
    void aMarkThatFailsTwiceIsRefreshedThreeTimesWithDoublingDelaysThatABusinessChangeDoesNotShorten()
            throws Exception {
        MarkKey key = change("k", "v1");
        projection.failNext("k", 2);

        engine.steps().refresh(engine.steps().claim(List.of(key)));
        assertThat(backoff(key)).isEqualTo(Duration.ofSeconds(5));
        assertThat(harness.row(key).lastError()).isEqualTo("java.lang.IllegalStateException: scripted failure of k");
        assertThat(engine.steps().claim(List.of(key))).as("backing off").isEmpty();

        harness.clock.advance(Duration.ofSeconds(2));
        change("k", "v1");
        assertThat(engine.steps().claim(List.of(key))).as("a business change does not make it due early").isEmpty();

        harness.clock.advance(Duration.ofSeconds(3));
        engine.steps().refresh(engine.steps().claim(List.of(key)));
        assertThat(backoff(key)).isEqualTo(Duration.ofSeconds(10));

        harness.clock.advance(Duration.ofSeconds(9));
        assertThat(engine.steps().claim(List.of(key))).isEmpty();
        harness.clock.advance(Duration.ofSeconds(1));
        engine.steps().refresh(engine.steps().claim(List.of(key)));
        assertThat(harness.pending()).isZero();
        assertThat(projection.model.get("k")).isEqualTo("v1");
        assertThat(harness.outcomes(key))
                .containsExactly(RefreshOutcome.FAILED, RefreshOutcome.FAILED, RefreshOutcome.SUCCESS);
    }

    @Test
    void retryDelaysDoubleUpToTheirCap() throws Exception {
        MarkKey key = change("k", "v1");
        projection.failNext("k", 4);
        List<Duration> delays = new java.util.ArrayList<>();
        for (int i = 0; i < 4; i++) {
            engine.steps().refresh(engine.steps().claim(List.of(key)));
            Duration delay = backoff(key);
            delays.add(delay);
            harness.clock.advance(delay);
        }
        assertThat(delays).containsExactly(Duration.ofSeconds(5), Duration.ofSeconds(10), Duration.ofSeconds(20),
                Duration.ofSeconds(20));
    }

    @Test
    void aFailureRecordedByAWorkerWhoseLeaseLapsedDoesNotTouchTheNewHoldersClaim() throws Exception {
        MarkKey key = change("k", "v1");
        projection.failNext("k", 1);
        ScriptedProjection.Gate gate = projection.gate("k");
        List<ClaimedMark> lapsed = engine.steps().claim(List.of(key));
        Future<?> worker = threads.submit(() -> engine.steps().refresh(lapsed));
        assertThat(gate.entered.await(30, TimeUnit.SECONDS)).isTrue();

        harness.clock.advance(LEASE.plusSeconds(1));
        List<ClaimedMark> holder = otherInstance.steps().claim(List.of(key));
        assertThat(holder).hasSize(1);
        gate.release.countDown();
        worker.get(30, TimeUnit.SECONDS);

        EngineHarness.Row row = harness.row(key);
        assertThat(row.claimToken()).isEqualTo(holder.get(0).token());
        assertThat(row.attempts()).isZero();
        assertThat(row.lastError()).isNull();
        otherInstance.steps().refresh(holder);
        assertThat(harness.row(key)).as("the late failure's re-mark: one more refresh").isNotNull();
        otherInstance.drain();
        assertThat(projection.model.get("k")).isEqualTo("v1");
        assertThat(harness.pending()).isZero();
    }

    @Test
    void aClaimNearTheEndOfItsLeaseIsReleasedUnstartedNeverRefreshed() throws Exception {
        MarkKey key = change("k", "v1");
        List<ClaimedMark> claimed = engine.steps().claim(List.of(key));
        harness.clock.advance(LEASE.dividedBy(2)); // less than lease/2 + margin left

        engine.steps().refresh(claimed);

        assertThat(projection.calls).isEmpty();
        assertThat(harness.row(key).claimToken()).isNull();
        assertThat(harness.row(key).markCount()).as("released, not marked again").isEqualTo(1);
        assertThat(engine.steps().claim(List.of(key))).as("free for the next worker at once").hasSize(1);
    }

    @Test
    void aBatchWhoseRefreshAllThrowsRetriesEachIdAloneAndRecordsTheFailureForThePoisonedIdOnly() throws Exception {
        MarkKey a = change("a", "v-a");
        MarkKey b = change("b", "v-b");
        MarkKey c = change("c", "v-c");
        projection.poison("b");
        projection.failNext("b", 1);

        engine.steps().refresh(engine.steps().claim(List.of(a, b, c)));

        assertThat(projection.batches).as("one refreshAll of the tenant's batch").hasSize(1);
        assertThat(harness.row(a)).isNull();
        assertThat(harness.row(c)).isNull();
        assertThat(harness.row(b).attempts()).isEqualTo(1);
        assertThat(projection.model).containsEntry("a", "v-a").containsEntry("c", "v-c").doesNotContainKey("b");
    }

    /** The source changes to {@code value} and the change is marked, as a committed business transaction does. */
    private MarkKey change(String id, String value) throws Exception {
        projection.source.put(id, value);
        return harness.mark(ScriptedProjection.NAME, id);
    }

    private Duration backoff(MarkKey key) throws Exception {
        EngineHarness.Row row = harness.row(key);
        java.time.Instant failedAt;
        try (java.sql.Connection c = harness.connect(); java.sql.PreparedStatement s = c.prepareStatement(
                "SELECT last_failed_at FROM projection_pending WHERE entity_id = ?")) {
            s.setString(1, key.entityId());
            try (java.sql.ResultSet r = s.executeQuery()) {
                r.next();
                failedAt = r.getObject(1, java.time.OffsetDateTime.class).toInstant();
            }
        }
        return Duration.between(failedAt, row.availableAt());
    }
}
