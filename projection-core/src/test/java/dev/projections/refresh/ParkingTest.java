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
    static final class FailingProjection implements Projection {
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
