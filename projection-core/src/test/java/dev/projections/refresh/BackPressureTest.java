package dev.projections.refresh;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.MarkKey;
import dev.projections.store.Tables;
import dev.projections.store.Suspension;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Back-pressure is not failure (docs/contract.md §6): a refresh that could not get a pooled connection or thread
 * costs its key no attempt and its projection no step towards suspension.
 */
class BackPressureTest {

    /** What WildFly's datasource throws when its pool stays exhausted for the blocking timeout. */
    static Exception poolTimeout() {
        return new SQLException("javax.resource.ResourceException: IJ000453: Unable to get managed connection for "
                + "java:jboss/datasources/ProjectionDS",
                new Exception("IJ000655: No managed connections available within configured blocking timeout "
                        + "(30000 [ms])"));
    }

    @Test
    void aPoolTimeoutInABatchGivesTheWholeGroupBackWithoutAnAttemptAndSuspendsNothing() throws Exception {
        ParkingTest.FailingProjection projection = new ParkingTest.FailingProjection();
        EngineHarness harness = new EngineHarness("back-pressure", Map.of("projection.retry-delay", "5s",
                "projection.max-attempts", "1", "projection.suspend-after-failing-keys", "1",
                "projection.batch-size", "10"), projection);
        RefreshEngine engine = harness.newEngine();
        List<MarkKey> keys = new ArrayList<>();
        for (int i = 1; i <= 4; i++) {
            keys.add(harness.mark("failing", "k" + i));
        }
        projection.failures.put("k2", new IllegalStateException("rolled back", poolTimeout()));

        java.time.Instant before = harness.clock.instant();
        engine.steps().refresh(engine.steps().claim(keys));
        java.time.Instant after = harness.clock.instant();

        for (MarkKey key : keys) {
            EngineHarness.Row row = harness.row(key);
            assertThat(row.attempts()).as(key + ": no attempt counted, so not parked by max-attempts 1").isZero();
            assertThat(row.lastError()).isNull();
            assertThat(row.claimToken()).as(key + " given back").isNull();
            assertThat(row.availableAt()).as(key + " due after the retry delay")
                    .isBetween(before.plusSeconds(5), after.plusSeconds(5));
        }
        assertThat(suspensions(harness)).as("one failing key would suspend; back-pressure does not").isEmpty();

        // the pool has connections again
        projection.failures.clear();
        harness.clock.advance(Duration.ofSeconds(5));
        engine.steps().refresh(engine.steps().claim(keys));
        assertThat(harness.pending()).isZero();
    }

    @Test
    void aProjectionsOwnBackPressureListGivesItsMarksBackAfterItsOwnRetryDelay() throws Exception {
        // a search cluster's "too many requests" is back-pressure for this projection alone
        ParkingTest.FailingProjection projection = new ParkingTest.FailingProjection();
        EngineHarness harness = new EngineHarness("back-pressure-own", Map.of("projection.retry-delay", "5s",
                "projection.failing.back-pressure", "java.util.concurrent.RejectedExecutionException",
                "projection.failing.retry-delay", "2s"), projection);
        RefreshEngine engine = harness.newEngine();
        MarkKey key = harness.mark("failing", "k");
        projection.failures.put("k", new IllegalStateException("search cluster busy",
                new java.util.concurrent.RejectedExecutionException("429 Too Many Requests")));

        java.time.Instant before = harness.clock.instant();
        engine.steps().refresh(engine.steps().claim(List.of(key)));
        java.time.Instant after = harness.clock.instant();

        EngineHarness.Row row = harness.row(key);
        assertThat(row.attempts()).as("given back, no attempt counted").isZero();
        assertThat(row.lastError()).isNull();
        assertThat(row.availableAt()).as("due after its own retry delay")
                .isBetween(before.plusSeconds(2), after.plusSeconds(2));
    }

    @Test
    void afterBackPressureTheBatchStartsNoOtherGroupAndGivesThemBackDueAsTheyWere() throws Exception {
        ParkingTest.FailingProjection projection = new ParkingTest.FailingProjection();
        EngineHarness harness = new EngineHarness("back-pressure-groups", Map.of("projection.batch-size", "10"),
                projection);
        RefreshEngine engine = harness.newEngine();
        // one mark per tenant: three groups of one, refreshed one after the other
        List<MarkKey> keys = List.of(harness.mark("failing", "a", "1"), harness.mark("failing", "b", "1"),
                harness.mark("failing", "c", "1"));
        java.util.Map<MarkKey, java.time.Instant> due = new java.util.HashMap<>();
        for (MarkKey key : keys) {
            due.put(key, harness.row(key).availableAt());
        }
        projection.failures.put("1", new IllegalStateException(poolTimeout()));

        engine.steps().refresh(engine.steps().claim(keys));

        assertThat(projection.refreshed).isEmpty();
        long givenBackLater = 0;
        for (MarkKey key : keys) {
            givenBackLater += harness.row(key).availableAt().isAfter(due.get(key)) ? 1 : 0;
        }
        assertThat(givenBackLater).as("only the group that met the pressure waits the retry delay").isEqualTo(1);
        for (MarkKey key : keys) {
            assertThat(harness.row(key).claimToken()).as(key + " not left claimed").isNull();
            assertThat(harness.row(key).attempts()).isZero();
        }
    }

    @Test
    void whenTheGiveBackGetsNoConnectionEitherTheClaimLapsesWithItsAttemptsUntouched() throws Exception {
        EngineHarness[] holder = new EngineHarness[1];
        dev.projections.Projection projection = new dev.projections.Projection() {
            @Override
            public String name() {
                return "failing";
            }

            @Override
            public void refresh(String id) {
                holder[0].refuseTransactions.set(5); // the pool stays empty for what follows
                throw new IllegalStateException(poolTimeout());
            }
        };
        EngineHarness harness = new EngineHarness("back-pressure-no-give-back", Map.of("projection.lease-time", "30s"),
                projection);
        holder[0] = harness;
        RefreshEngine engine = harness.newEngine();
        MarkKey key = harness.mark("failing", "k");

        engine.steps().refresh(engine.steps().claim(List.of(key))); // does not throw: the lease is the fallback

        harness.refuseTransactions.set(0);
        assertThat(harness.row(key).claimToken()).as("still claimed: nothing could be written").isNotNull();
        assertThat(harness.row(key).attempts()).isZero();
        harness.clock.advance(Duration.ofSeconds(31));
        assertThat(engine.steps().claim(List.of(key))).as("claimable again once the lease lapsed").hasSize(1);
    }

    @Test
    void aKeyThatMeetsBackPressureTenTimesInARowIsRecordedAsFailed() throws Exception {
        ParkingTest.FailingProjection projection = new ParkingTest.FailingProjection();
        EngineHarness harness = new EngineHarness("back-pressure-counted", Map.of("projection.retry-delay", "1s",
                "projection.max-retry-delay", "2s", "projection.suspend-after-failing-keys", "1"), projection);
        RefreshEngine engine = harness.newEngine();
        MarkKey key = harness.mark("failing", "k");
        projection.failures.put("k", new IllegalStateException(new SQLTransientConnectionException("pool empty")));

        for (int time = 1; time < PressureGiveBacks.MAX_GIVE_BACKS; time++) {
            engine.steps().refresh(engine.steps().claim(List.of(key)));
            assertThat(harness.row(key).attempts()).as("give-back " + time).isZero();
            harness.clock.advance(Duration.ofSeconds(2));
        }
        engine.steps().refresh(engine.steps().claim(List.of(key)));

        assertThat(harness.row(key).attempts()).isEqualTo(1);
        assertThat(harness.row(key).lastError()).contains("back-pressure 10 times in a row").contains("pool empty");
        assertThat(suspensions(harness)).as("a failure like any other: it feeds the suspension window")
                .containsKey("failing");
    }

    @Test
    void aGroupThatMeetsBackPressureAgainAndAgainGoesOneByOneSoOnlyTheKeyThatMeetsItIsCounted() throws Exception {
        ParkingTest.FailingProjection projection = new ParkingTest.FailingProjection();
        EngineHarness harness = new EngineHarness("back-pressure-group", Map.of("projection.retry-delay", "1s",
                "projection.max-retry-delay", "2s", "projection.batch-size", "10"), projection);
        RefreshEngine engine = harness.newEngine();
        List<MarkKey> keys = List.of(harness.mark("failing", "k1"), harness.mark("failing", "k2"),
                harness.mark("failing", "k3"));
        // one id's refresh meets a listed back-pressure type every time; refreshAll of the group meets it too
        projection.failures.put("k2", new IllegalStateException(new java.util.concurrent.RejectedExecutionException()));

        for (int round = 1; round <= 2 * PressureGiveBacks.MAX_GIVE_BACKS && harness.row(keys.get(1)).attempts() == 0;
             round++) {
            engine.steps().refresh(engine.steps().claim(keys));
            harness.clock.advance(Duration.ofSeconds(2));
        }

        assertThat(harness.row(keys.get(1)).attempts()).as("the key that meets it, counted as failed").isEqualTo(1);
        assertThat(harness.row(keys.get(1)).lastError()).contains("back-pressure 10 times in a row");
        assertThat(harness.row(keys.get(0))).as("its neighbours refreshed, never counted, not held").isNull();
        assertThat(harness.row(keys.get(2))).isNull();
    }

    @Test
    void recognisesThePoolsSignalsAnywhereInTheCausesAndTypesListedInTheSetting() {
        BackPressure backPressure = new BackPressure(List.of("java.util.concurrent.TimeoutException"));

        assertThat(backPressure.isBackPressure(new IllegalStateException("rollback", poolTimeout()))).isTrue();
        assertThat(backPressure.isBackPressure(new SQLTransientConnectionException("pool empty"))).isTrue();
        assertThat(backPressure.isBackPressure(new RuntimeException(
                "WFLYEJB0378: Failed to acquire a permit within 5 MINUTES"))).isTrue();
        assertThat(backPressure.isBackPressure(new java.util.concurrent.RejectedExecutionException("full")))
                .isTrue();
        assertThat(backPressure.isBackPressure(new IllegalStateException(new java.util.concurrent.TimeoutException())))
                .as("listed in projection.back-pressure").isTrue();

        assertThat(backPressure.isBackPressure(new SQLException("IJ031084: Unable to create connection",
                new java.net.ConnectException("Connection refused")))).as("a database that is down is a fault")
                .isFalse();
        assertThat(backPressure.isBackPressure(new IllegalStateException("duplicate key"))).isFalse();
    }

    private static Map<String, Suspension> suspensions(EngineHarness harness) throws Exception {
        try (Connection connection = harness.connect()) {
            return Tables.forProduct(connection.getMetaData().getDatabaseProductName()).control()
                    .suspensions(connection);
        }
    }
}
