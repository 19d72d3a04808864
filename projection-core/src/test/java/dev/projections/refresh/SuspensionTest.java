package dev.projections.refresh;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.MarkKey;
import dev.projections.Projection;
import dev.projections.store.Tables;
import dev.projections.store.Suspension;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/**
 * A projection failing across many keys is suspended, not its keys (docs/contract.md §6): driven step by step with
 * the engine's clock; three failing keys at half the refreshes trip it.
 */
class SuspensionTest {

    /** Fails every refresh while its backend is "down". */
    static final class BackendProjection implements Projection {
        volatile boolean down;
        volatile String poison;
        final Map<String, Integer> refreshed = new ConcurrentHashMap<>();
        final java.util.concurrent.atomic.AtomicInteger calls = new java.util.concurrent.atomic.AtomicInteger();

        @Override
        public String name() {
            return "backend";
        }

        @Override
        public void refresh(String id) {
            calls.incrementAndGet();
            if (id.equals(poison)) {
                throw new IllegalStateException("bad data in " + id);
            }
            if (down) {
                throw new IllegalStateException("Connection refused: search backend");
            }
            refreshed.merge(id, 1, Integer::sum);
        }
    }

    private final BackendProjection projection = new BackendProjection();

    @Test
    void failuresAcrossKeysSuspendTheProjectionKeepTheRestsAttemptsAndAProbeLiftsItOnceItWorks() throws Exception {
        EngineHarness harness = new EngineHarness("suspension", Map.of("projection.suspend-after-failing-keys", "3",
                "projection.suspend-failure-percent", "50", "projection.probe-interval", "30s",
                "projection.batch-size", "10"), projection);
        RefreshEngine engine = harness.newEngine();
        List<MarkKey> keys = markSix(harness);
        projection.down = true;

        engine.steps().refresh(engine.steps().claim(keys));

        assertThat(suspensions(harness)).containsOnlyKeys("backend");
        assertThat(suspensions(harness).get("backend").reason())
                .startsWith("3 of 3 refreshes in the last minute failed, across 3 keys")
                .contains("Connection refused: search backend");
        int failed = 0;
        for (MarkKey key : keys) {
            failed += harness.row(key).attempts();
            assertThat(harness.row(key).claimToken()).as(key + " given back").isNull();
        }
        assertThat(failed).as("the keys after the third were given back untried").isEqualTo(3);
        harness.clock.advance(Duration.ofMinutes(10));
        assertThat(engine.steps().claim(keys)).as("no claims while suspended").isEmpty();

        // the probe while still down: one key tried, not held against it; still suspended
        int callsBefore = projection.calls.get();
        assertThat(engine.probeSuspended()).isEmpty();
        assertThat(projection.calls.get() - callsBefore).as("one probe refresh").isEqualTo(1);
        assertThat(suspensions(harness)).containsOnlyKeys("backend");
        assertThat(keys.stream().mapToInt(key -> {
            try {
                return harness.row(key).attempts();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }).sum()).as("a failed probe counts no attempt").isEqualTo(3);
        assertThat(engine.probeSuspended()).as("the next probe waits for its interval").isEmpty();
        assertThat(projection.calls.get() - callsBefore).as("no refresh before the interval").isEqualTo(1);

        projection.down = false;
        harness.clock.advance(Duration.ofSeconds(30));
        assertThat(engine.probeSuspended()).containsExactly("backend");
        assertThat(suspensions(harness)).isEmpty();
        harness.clock.advance(Duration.ofMinutes(10));
        engine.steps().refresh(engine.steps().claim(keys));
        assertThat(harness.pending()).isZero();
        assertThat(projection.refreshed).hasSize(6);
    }

    @Test
    void eachProjectionIsSuspendedByItsOwnThresholds() throws Exception {
        // globally 3 keys suspend; this projection's own setting says never
        EngineHarness harness = new EngineHarness("suspension-own", Map.of("projection.suspend-after-failing-keys", "3",
                "projection.backend.suspend-after-failing-keys", "0", "projection.batch-size", "10"), projection);
        RefreshEngine engine = harness.newEngine();
        List<MarkKey> keys = markSix(harness);
        projection.down = true;

        engine.steps().refresh(engine.steps().claim(keys));

        assertThat(suspensions(harness)).as("never suspended by its own setting").isEmpty();
        int failed = 0;
        for (MarkKey key : keys) {
            failed += harness.row(key).attempts();
        }
        assertThat(failed).as("every key tried and backing off").isEqualTo(6);
    }

    @Test
    void aKeyFailingForItsOwnReasonDoesNotKeepItsProjectionSuspended() throws Exception {
        EngineHarness harness = new EngineHarness("suspension-poison", Map.of("projection.suspend-after-failing-keys",
                "3", "projection.probe-interval", "30s"), projection);
        RefreshEngine engine = harness.newEngine();
        MarkKey first = harness.mark("backend", "k1"); // due the longest, and first in key order too
        harness.clock.advance(Duration.ofSeconds(1));
        List<MarkKey> others = List.of(harness.mark("backend", "k2"), harness.mark("backend", "k3"),
                harness.mark("backend", "k4"));
        projection.down = true;
        engine.steps().refresh(engine.steps().claim(others));
        assertThat(suspensions(harness)).containsOnlyKeys("backend");

        // the backend is back, but k1 fails on its own data: the probe that takes it fails and gives it back for
        // later, so the next probe takes another key and lifts the suspension
        projection.down = false;
        projection.poison = "k1";
        harness.clock.advance(Duration.ofMinutes(5));
        assertThat(engine.probeSuspended()).isEmpty();
        harness.clock.advance(Duration.ofSeconds(30));
        assertThat(engine.probeSuspended()).containsExactly("backend");
        assertThat(harness.row(first).attempts()).as("the failed probe counted nothing").isZero();
    }

    @Test
    void oneKeyFailingAgainAndAgainIsParkedOrBacksOffButNeverSuspendsItsProjection() throws Exception {
        EngineHarness harness = new EngineHarness("no-suspension", Map.of("projection.suspend-after-failing-keys", "3",
                "projection.retry-delay", "1s", "projection.max-retry-delay", "1s"), projection);
        RefreshEngine engine = harness.newEngine();
        MarkKey key = harness.mark("backend", "only");
        projection.down = true;
        for (int i = 0; i < 5; i++) {
            engine.steps().refresh(engine.steps().claim(List.of(key)));
            harness.clock.advance(Duration.ofSeconds(1));
        }
        assertThat(suspensions(harness)).isEmpty();
        assertThat(harness.row(key).attempts()).isEqualTo(5);
    }

    private static Map<String, Suspension> suspensions(EngineHarness harness) throws Exception {
        try (Connection connection = harness.connect()) {
            return Tables.forProduct(connection.getMetaData().getDatabaseProductName()).control()
                    .suspensions(connection);
        }
    }

    /** Six marks of the backend projection, k1 … k6. */
    private static List<MarkKey> markSix(EngineHarness harness) throws Exception {
        List<MarkKey> keys = new ArrayList<>();
        for (int i = 1; i <= 6; i++) {
            keys.add(harness.mark("backend", "k" + i));
        }
        return keys;
    }
}
