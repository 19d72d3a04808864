package dev.projections.refresh;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.MarkKey;
import dev.projections.RefreshOutcome;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;
import org.junit.jupiter.api.Test;

/**
 * What application code throws once a refresh and its ack committed — a {@code RefreshListener}, a tenant scope's
 * close — is not the refresh's failure (docs/contract.md §6): the key is not marked again, no attempt is counted,
 * nothing is suspended, and a probe that refreshed its key lifts the suspension. Each such failure is counted.
 */
class AfterCommitFailureTest {

    private static final int KEYS = 100;

    @Test
    void aListenerThrowingAfterEachCommittedRefreshOfOneMarkLeavesEveryKeyRefreshedOnceAndNoneFailed()
            throws Exception {
        refreshesEveryKeyOnceWithAThrowingListener("after-commit-one", "1");
    }

    @Test
    void aListenerThrowingAfterEachCommittedRefreshAllLeavesEveryKeyRefreshedOnceAndNoneFailed() throws Exception {
        refreshesEveryKeyOnceWithAThrowingListener("after-commit-all", "10");
    }

    private static void refreshesEveryKeyOnceWithAThrowingListener(String database, String batchSize) throws Exception {
        ScriptedProjection projection = new ScriptedProjection();
        EngineHarness harness = new EngineHarness(database, Map.of("projection.batch-size", batchSize), projection);
        RefreshEngine engine = harness.newEngine();
        List<MarkKey> keys = new ArrayList<>();
        for (int i = 0; i < KEYS; i++) {
            keys.add(harness.mark(ScriptedProjection.NAME, String.format("k%03d", i)));
        }
        harness.listenerThrows = () -> new IllegalStateException("metrics backend down");

        // bounded: a key marked again after each refresh would be due again at once
        for (int pass = 0; pass < 3 * KEYS; pass++) {
            List<dev.projections.store.ClaimedMark> claimed = engine.steps().claimDue();
            if (claimed.isEmpty()) {
                break;
            }
            engine.steps().refresh(claimed);
        }

        assertThat(harness.pending()).as("every ack stands: no key marked again").isZero();
        assertThat(projection.calls).as("each key refreshed once").hasSize(KEYS).doesNotHaveDuplicates();
        assertThat(harness.refreshed).extracting(EngineHarness.Refreshed::outcome).hasSize(KEYS)
                .containsOnly(RefreshOutcome.SUCCESS);
        assertThat(harness.suspensions()).as("no refresh failed, so nothing to suspend").isEmpty();
        assertThat(harness.stats.listenerFailures(ScriptedProjection.NAME)).as("each listener failure counted")
                .isEqualTo(KEYS);
    }

    @Test
    void aListenerThrowingWhatLooksLikeBackPressureAfterTheCommitNeitherGivesKeysBackNorStopsTheDrainer()
            throws Exception {
        ScriptedProjection projection = new ScriptedProjection();
        EngineHarness harness = new EngineHarness("after-commit-pressure", Map.of("projection.batch-size", "5"),
                projection);
        RefreshEngine engine = harness.newEngine();
        for (int i = 0; i < 20; i++) {
            harness.mark(ScriptedProjection.NAME, "k" + i);
        }
        harness.listenerThrows = () -> new RejectedExecutionException("listener's executor is full");

        while (engine.drain()) {
            // one drainer, its turn until nothing is due
        }

        assertThat(harness.pending()).as("the drainer went on after the first batch").isZero();
        assertThat(projection.calls).hasSize(20).doesNotHaveDuplicates();
        assertThat(harness.stats.listenerFailures(ScriptedProjection.NAME)).isEqualTo(20);
    }

    @Test
    void aProbeWhoseListenerThrowsAfterTheCommitLiftsTheSuspensionAndItsKeyStaysRefreshed() throws Exception {
        ScriptedProjection projection = new ScriptedProjection();
        EngineHarness harness = new EngineHarness("after-commit-probe", Map.of(), projection);
        RefreshEngine engine = harness.newEngine();
        harness.suspend(ScriptedProjection.NAME, "suspended by hand");
        MarkKey key = harness.mark(ScriptedProjection.NAME, "k");
        harness.listenerThrows = () -> new IllegalStateException("metrics backend down");

        assertThat(engine.probeSuspended()).containsExactly(ScriptedProjection.NAME);

        assertThat(harness.row(key)).as("acked, not given back").isNull();
        assertThat(harness.suspensions()).isEmpty();
        assertThat(projection.calls).containsExactly("k");
        assertThat(harness.stats.listenerFailures(ScriptedProjection.NAME)).isEqualTo(1);
    }

    @Test
    void aTenantScopeWhoseCloseThrowsAfterRefreshAllAndItsAcksCommittedLeavesTheMarksAcked() throws Exception {
        ScriptedProjection projection = new ScriptedProjection();
        EngineHarness harness = new EngineHarness("after-commit-scope", Map.of("projection.batch-size", "10"),
                projection);
        RefreshEngine engine = harness.newEngine();
        List<MarkKey> keys = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            keys.add(harness.mark(ScriptedProjection.NAME, "t1", "k" + i));
        }
        harness.tenantScope = tenant -> () -> {
            throw new IllegalStateException("could not restore the thread's tenant after " + tenant);
        };

        engine.steps().refresh(engine.steps().claim(keys));

        assertThat(projection.batches).as("one refreshAll, not retried one by one").hasSize(1);
        assertThat(projection.calls).hasSize(10).doesNotHaveDuplicates();
        assertThat(harness.pending()).as("no acked mark marked again").isZero();
        assertThat(harness.refreshed).extracting(EngineHarness.Refreshed::outcome).containsOnly(RefreshOutcome.SUCCESS);
        assertThat(harness.stats.listenerFailures(ScriptedProjection.NAME)).as("one scope, closed once").isEqualTo(1);
    }

    @Test
    void aTenantScopeWhoseCloseThrowsAfterOneMarksRefreshCommittedLeavesItAckedAndCountsNoAttempt() throws Exception {
        ScriptedProjection projection = new ScriptedProjection();
        EngineHarness harness = new EngineHarness("after-commit-scope-one", Map.of("projection.batch-size", "1"),
                projection);
        RefreshEngine engine = harness.newEngine();
        MarkKey key = harness.mark(ScriptedProjection.NAME, "t1", "k");
        harness.tenantScope = tenant -> () -> {
            throw new IllegalStateException("could not restore the thread's tenant after " + tenant);
        };

        engine.steps().refresh(engine.steps().claim(List.of(key)));

        assertThat(harness.row(key)).as("acked, not recorded as failed").isNull();
        assertThat(harness.outcomes(key)).containsExactly(RefreshOutcome.SUCCESS);
        assertThat(harness.stats.listenerFailures(ScriptedProjection.NAME)).isEqualTo(1);
    }

    @Test
    void aTenantScopeThatCannotBeEnteredIsStillTheRefreshsFailure() throws Exception {
        ScriptedProjection projection = new ScriptedProjection();
        EngineHarness harness = new EngineHarness("scope-enter-fails", Map.of("projection.batch-size", "1"),
                projection);
        RefreshEngine engine = harness.newEngine();
        MarkKey key = harness.mark(ScriptedProjection.NAME, "gone", "k");
        harness.tenantScope = tenant -> {
            throw new IllegalStateException("no tenant " + tenant);
        };

        engine.steps().refresh(engine.steps().claim(List.of(key)));

        assertThat(harness.row(key).attempts()).isEqualTo(1);
        assertThat(harness.row(key).lastError()).contains("no tenant gone");
        assertThat(harness.outcomes(key)).containsExactly(RefreshOutcome.FAILED);
        assertThat(projection.calls).isEmpty();
        assertThat(harness.stats.listenerFailures(ScriptedProjection.NAME)).as("the refresh's own failure").isZero();
    }

    @Test
    void aListenerThrowingWhenToldOfAFailedRefreshLeavesTheDrainerRunningAndTheFailureRecordedOnce() throws Exception {
        ScriptedProjection projection = new ScriptedProjection();
        EngineHarness harness = new EngineHarness("failed-outcome-listener", Map.of("projection.batch-size", "10"),
                projection);
        RefreshEngine engine = harness.newEngine();
        MarkKey failing = harness.mark(ScriptedProjection.NAME, "a-failing");
        for (int i = 0; i < 5; i++) {
            harness.mark(ScriptedProjection.NAME, "k" + i);
        }
        projection.failNext("a-failing", 2); // its refreshAll, then its refresh alone
        harness.listenerThrows = () -> new IllegalStateException("metrics backend down");

        while (engine.drain()) {
            // the failing key backs off; the others are refreshed by the same drainer
        }

        assertThat(harness.pending()).as("only the failing key left").isEqualTo(1);
        assertThat(harness.row(failing).attempts()).isEqualTo(1);
        assertThat(harness.outcomes(failing)).containsExactly(RefreshOutcome.FAILED);
        assertThat(harness.stats.listenerFailures(ScriptedProjection.NAME)).as("five successes and one failure told")
                .isEqualTo(6);
    }
}
