package dev.projections.refresh;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.MarkKey;
import dev.projections.NonRetryableRefreshException;
import dev.projections.ParkedSelection;
import dev.projections.Projection;
import dev.projections.store.PendingQueue;
import dev.projections.store.Tables;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/** When a failure parks its mark instead of backing off (docs/contract.md §6), driven step by step. */
class ParkingTest {

    /** Fails each id with the exception scripted for it, for ever; refreshes the others into a map. */
    static class FailingProjection implements Projection {
        final Map<String, RuntimeException> failures = new ConcurrentHashMap<>();
        final Map<String, Integer> refreshed = new ConcurrentHashMap<>();

        @Override
        public String name() {
            return "failing";
        }

        @Override
        public void refresh(String id) {
            RuntimeException failure = failures.get(id);
            if (failure != null) {
                throw failure;
            }
            refreshed.merge(id, 1, Integer::sum);
        }
    }

    private final FailingProjection projection = new FailingProjection();

    @Test
    void aMarkIsParkedWhenItHasFailedMaxAttemptsTimesAndResumedGetsOneMoreTry() throws Exception {
        EngineHarness harness = new EngineHarness("parking-budget", Map.of("projection.max-attempts", "3",
                "projection.retry-delay", "5s", "projection.max-retry-delay", "20s"), projection);
        RefreshEngine engine = harness.newEngine();
        MarkKey key = harness.mark("failing", "k");
        projection.failures.put("k", new IllegalStateException("still broken"));

        for (int attempt = 1; attempt <= 2; attempt++) {
            engine.steps().refresh(engine.steps().claim(List.of(key)));
            assertThat(harness.row(key).availableAt()).as("attempt " + attempt + " backs off")
                    .isNotEqualTo(PendingQueue.PARKED_UNTIL);
            harness.clock.advance(Duration.ofSeconds(20));
        }
        engine.steps().refresh(engine.steps().claim(List.of(key)));
        assertThat(harness.row(key).attempts()).isEqualTo(3);
        assertThat(harness.row(key).availableAt()).as("parked after the third").isEqualTo(PendingQueue.PARKED_UNTIL);

        harness.clock.advance(Duration.ofDays(365));
        assertThat(engine.steps().claim(List.of(key))).as("never claimed while parked").isEmpty();
        assertThat(engine.hasDueWork()).isFalse();

        // resumed with its cause unfixed: one more try, parked again at once
        resume(harness, ParkedSelection.mark("failing", "", "k"));
        engine.steps().refresh(engine.steps().claim(List.of(key)));
        assertThat(harness.row(key).attempts()).isEqualTo(4);
        assertThat(harness.row(key).availableAt()).isEqualTo(PendingQueue.PARKED_UNTIL);

        // fixed, resumed: refreshed and gone
        projection.failures.remove("k");
        resume(harness, ParkedSelection.all("failing"));
        engine.steps().refresh(engine.steps().claim(List.of(key)));
        assertThat(harness.row(key)).isNull();
        assertThat(projection.refreshed).containsEntry("k", 1);
    }

    @Test
    void eachProjectionParksAndBacksOffByItsOwnSettings() throws Exception {
        // "failing" parks after one failure by its own key; "strict" by its code's defaults; both under a global
        // budget of 3 that a third projection keeps
        FailingProjection strict = new FailingProjection() {
            @Override
            public String name() {
                return "strict";
            }

            @Override
            public Map<String, String> defaultSettings() {
                return Map.of("non-retryable", "java.lang.IllegalArgumentException", "retry-delay", "1s");
            }
        };
        FailingProjection lenient = new FailingProjection() {
            @Override
            public String name() {
                return "lenient";
            }
        };
        EngineHarness harness = new EngineHarness("parking-per-projection", Map.of("projection.max-attempts", "3",
                "projection.failing.max-attempts", "1", "projection.lenient.retry-delay", "30s"),
                projection, strict, lenient);
        RefreshEngine engine = harness.newEngine();
        MarkKey failing = harness.mark("failing", "k");
        MarkKey strictKey = harness.mark("strict", "k");
        MarkKey lenientKey = harness.mark("lenient", "k");
        MarkKey strictRetried = harness.mark("strict", "retried");
        projection.failures.put("k", new IllegalStateException("broken"));
        strict.failures.put("k", new IllegalArgumentException("bad input"));
        strict.failures.put("retried", new IllegalStateException("broken"));
        lenient.failures.put("k", new IllegalStateException("broken"));
        java.time.Instant failedAt = harness.clock.instant();

        engine.steps().refresh(engine.steps().claim(List.of(failing, strictRetried, strictKey, lenientKey)));
        java.time.Instant done = harness.clock.instant(); // the harness's clock runs: each failure's time is within

        assertThat(harness.row(failing).availableAt()).as("its own max-attempts of 1").isEqualTo(PendingQueue.PARKED_UNTIL);
        assertThat(harness.row(strictKey).availableAt()).as("non-retryable by its code's list")
                .isEqualTo(PendingQueue.PARKED_UNTIL);
        assertThat(harness.row(strictRetried).availableAt()).as("its code's retry delay")
                .isBetween(failedAt.plusSeconds(1), done.plusSeconds(1));
        assertThat(harness.row(lenientKey).availableAt()).as("its own retry delay, the global budget")
                .isBetween(failedAt.plusSeconds(30), done.plusSeconds(30));
    }

    @Test
    void aNonRetryableFailureParksAtOnceWithoutAnyBudgetAndOthersInItsBatchAreRefreshed() throws Exception {
        EngineHarness harness = new EngineHarness("parking-at-once", Map.of(), projection);
        RefreshEngine engine = harness.newEngine();
        MarkKey bad = harness.mark("failing", "bad");
        MarkKey good = harness.mark("failing", "good");
        projection.failures.put("bad", new NonRetryableRefreshException("total 1e20 does not fit DECIMAL(14,2)"));

        engine.steps().refresh(engine.steps().claim(List.of(bad, good)));

        assertThat(harness.row(bad).attempts()).isEqualTo(1);
        assertThat(harness.row(bad).availableAt()).isEqualTo(PendingQueue.PARKED_UNTIL);
        assertThat(harness.row(bad).lastError()).contains("total 1e20 does not fit");
        assertThat(harness.row(good)).isNull();
    }

    @Test
    void aListedExceptionTypeAnywhereInTheCausesParksAtOnceAndAnUnlistedOneBacksOff() throws Exception {
        EngineHarness harness = new EngineHarness("parking-listed",
                Map.of("projection.non-retryable", "java.lang.ArithmeticException, java.time.DateTimeException"),
                projection);
        RefreshEngine engine = harness.newEngine();
        MarkKey wrapped = harness.mark("failing", "wrapped");
        MarkKey subtype = harness.mark("failing", "subtype");
        MarkKey other = harness.mark("failing", "other");
        projection.failures.put("wrapped", new IllegalStateException("rolled back",
                new ArithmeticException("Numeric overflow")));
        projection.failures.put("subtype", new java.time.format.DateTimeParseException("bad date", "x", 0));
        projection.failures.put("other", new IllegalStateException("connection reset"));

        engine.steps().refresh(engine.steps().claim(List.of(wrapped, subtype, other)));

        assertThat(harness.row(wrapped).availableAt()).isEqualTo(PendingQueue.PARKED_UNTIL);
        assertThat(harness.row(subtype).availableAt()).as("a subclass of a listed type")
                .isEqualTo(PendingQueue.PARKED_UNTIL);
        assertThat(harness.row(other).availableAt()).isNotEqualTo(PendingQueue.PARKED_UNTIL);
    }

    private static void resume(EngineHarness harness, ParkedSelection selection) throws Exception {
        try (Connection connection = harness.connect()) {
            assertThat(Tables.forProduct(connection.getMetaData().getDatabaseProductName()).actions()
                    .resumeParked(connection, selection, harness.clock.instant()))
                    .isEqualTo(1);
        }
    }
}
