package dev.projections.refresh;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.TenantScope;
import dev.projections.lifecycle.DriftFound;
import dev.projections.lifecycle.LifecycleEvent;
import dev.projections.refresh.VerificationStepTest.DriftingProjection;
import dev.projections.store.DriftTable;
import dev.projections.store.DriftTable.SampleTurn;
import dev.projections.store.LiquibaseSchema;
import dev.projections.store.Tables;
import dev.projections.testsupport.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The sweep's continuous drift sample (docs/design.md D58) on the engine's adjustable clock: at
 * {@code verify-per-minute} keys a minute a rolling walk checks every key within {@code keys / rate} minutes, finds a
 * damaged one at the turn that reaches it, re-marks it, counts it and tells it; one instance of the cluster takes a
 * turn.
 */
class DriftSamplerTest {

    private static final Duration SWEEP = Duration.ofSeconds(30);

    @Test
    void aSampleOfTenKeysAMinuteFindsADamagedKeyAtTheTurnThatReachesItAndEveryKeyWithinSixMinutes() throws Exception {
        DriftingProjection projection = new DriftingProjection(); // 60 ids, id-000 … id-059
        EngineHarness harness = new EngineHarness("drift-sample", Map.of(), projection);
        List<LifecycleEvent> told = new CopyOnWriteArrayList<>();
        DriftSampler sampler = sampler(harness, harness.clock, told::add, 10);
        projection.drifted.add("id-047");

        assertThat(sampler.sample()).as("the first sweep starts the sample; its first turn is due in a minute's share")
                .isZero();
        int checked = 0;
        Duration foundAfter = null;
        for (Duration elapsed = SWEEP; elapsed.compareTo(Duration.ofMinutes(6)) <= 0; elapsed = elapsed.plus(SWEEP)) {
            harness.clock.advance(SWEEP);
            checked += sampler.sample();
            if (foundAfter == null && harness.pending() > 0) {
                foundAfter = elapsed;
            }
        }

        assertThat(checked).as("10 keys a minute for 6 minutes: each of the 60 once").isEqualTo(60);
        assertThat(projection.checkedPages.stream().flatMap(List::stream).toList()).as("a rolling walk in ids() order")
                .isEqualTo(new DriftingProjection().ids(null, 60));
        assertThat(foundAfter).as("id-047 is the 48th key: reached by the turn at 5 minutes (keys 45 … 49)")
                .isEqualTo(Duration.ofMinutes(5));
        assertThat(harness.stats.drifted("checked")).isEqualTo(1);
        assertThat(told).singleElement().isInstanceOfSatisfying(DriftFound.class, event -> {
            assertThat(event.ids()).containsExactly("id-047");
            assertThat(event.verificationRun()).as("found by the sample").isNull();
        });
        assertThat(driftedSince(harness, Instant.EPOCH)).as("recorded for the console").isEqualTo(1);

        harness.newEngine().drain();
        assertThat(projection.refreshed).as("the ordinary refresh repairs it").containsExactly("id-047");

        harness.clock.advance(SWEEP);
        sampler.sample();
        assertThat(projection.checkedPages.get(projection.checkedPages.size() - 1)).as("round again from the start")
                .containsExactly("id-000", "id-001", "id-002", "id-003", "id-004");
    }

    @Test
    void aSlowRateIsKeptNotRoundedAwayAndALongPauseChecksAtMostAMinutesWorth() throws Exception {
        DriftingProjection projection = new DriftingProjection();
        EngineHarness harness = new EngineHarness("drift-sample-rate", Map.of(), projection);
        DriftSampler sampler = sampler(harness, harness.clock, event -> { }, 1);
        sampler.sample();

        int checked = 0;
        for (int sweep = 0; sweep < 10; sweep++) { // 5 minutes of sweeps every 30 s at 1 key a minute
            harness.clock.advance(SWEEP);
            checked += sampler.sample();
        }
        assertThat(checked).isEqualTo(5);

        harness.clock.advance(Duration.ofHours(1)); // the sweep stopped for an hour (an instance down, say)
        assertThat(sampler.sample()).as("a minute's worth, not an hour's").isEqualTo(1);
    }

    @Test
    void ofTwoInstancesThatReadTheSameTurnOneTakesItOnPostgresql() throws Exception {
        String url = LiquibaseSchema.freshPostgresSchema("drift_sample_turn");
        TestDatabase database = TestDatabase.get();
        oneOfTwoTakesTheTurn(Tables.forProduct("PostgreSQL"),
                () -> DriverManager.getConnection(url, database.user(), database.password()));
    }

    @Test
    void ofTwoInstancesThatReadTheSameTurnOneTakesItOnMariadb() throws Exception {
        String url = LiquibaseSchema.freshMariaDb("drift_sample_turn");
        dev.projections.testsupport.MariaDbTestDatabase server = LiquibaseSchema.mariaDb();
        oneOfTwoTakesTheTurn(Tables.forProduct("MariaDB"), () -> server.connect(url));
    }

    private interface Connect {
        Connection open() throws java.sql.SQLException;
    }

    private static void oneOfTwoTakesTheTurn(Tables store, Connect connect) throws Exception {
        DriftTable drift = store.drift();
        Instant start = Instant.parse("2026-12-06T10:00:00Z");
        try (Connection a = connect.open(); Connection b = connect.open()) {
            drift.start(a, "orders", start);
            drift.start(a, "orders", start.plusSeconds(1)); // a second start keeps the row as it is
            a.setAutoCommit(false);
            b.setAutoCommit(false);
            store.beginEngineTransaction(a);
            store.beginEngineTransaction(b);
            SampleTurn seenByA = drift.read(a, "orders").orElseThrow();
            SampleTurn seenByB = drift.read(b, "orders").orElseThrow();
            assertThat(seenByB).isEqualTo(seenByA);
            assertThat(seenByA.sampledAt()).isEqualTo(start);

            assertThat(drift.takeTurn(a, "orders", seenByA, start.plusSeconds(6))).isTrue();
            // B's update waits for A's row lock, or runs after A's commit: either way it matches nothing
            CompletableFuture<Boolean> bTook = CompletableFuture.supplyAsync(() -> {
                try {
                    return drift.takeTurn(b, "orders", seenByB, start.plusSeconds(6));
                } catch (java.sql.SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            a.commit();
            assertThat(bTook.get(30, TimeUnit.SECONDS)).as("the turn was A's").isFalse();
            b.commit();
            store.beginEngineTransaction(b);
            assertThat(drift.read(b, "orders").orElseThrow().sampledAt()).isEqualTo(start.plusSeconds(6));
            b.commit();
        }
    }

    private static DriftSampler sampler(EngineHarness harness, Clock clock, java.util.function.Consumer<LifecycleEvent> told,
                                        int rate) {
        return new DriftSampler(harness.store, harness.transactions, clock, harness.catalog(), TenantScope.NONE, null,
                name -> rate, name -> 5000, Duration.ofMinutes(2), harness.stats,
                new LifecycleAnnouncer(told::accept, harness.stats, clock, null));
    }

    private static long driftedSince(EngineHarness harness, Instant since) throws Exception {
        return harness.transactions.inNewTransaction(Duration.ofSeconds(5),
                connection -> harness.store.drift().driftedSince(connection, "checked", since));
    }
}
