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
    void withATenantDirectoryTheSampleWalksItsTenantsInOrderNeverTenantNoneAndRoundAgain() throws Exception {
        TenantPages projection = new TenantPages();
        EngineHarness harness = new EngineHarness("drift-sample-tenants", Map.of(), projection);
        List<String> directory = new CopyOnWriteArrayList<>(List.of("t2", "t1"));
        DriftSampler sampler = sampler(harness, event -> { }, 20, () -> List.copyOf(directory), projection);
        projection.drifted.add("t2/id-007");
        sampler.sample();

        for (int sweep = 0; sweep < 4; sweep++) { // 20 keys a minute, 30 s sweeps: 10 keys a sweep
            harness.clock.advance(SWEEP);
            sampler.sample();
        }
        assertThat(projection.walked).as("t1's 8 keys, then the rest of the allowance in t2, and round again")
                .containsExactly("t1:id-000..id-007", "t2:id-000..id-001", "t2:id-002..id-007", "t1:id-000..id-003",
                        "t1:id-004..id-007", "t2:id-000..id-005", "t2:id-006..id-007", "t1:id-000..id-007");
        assertThat(harness.pending()).as("t2's damaged key, re-marked in its tenant").isEqualTo(1);
        assertThat(projection.walked).noneMatch(page -> page.startsWith(":"));

        directory.remove("t1"); // t1 is gone: the sample stood in it, and goes on with the next tenant in order
        harness.clock.advance(SWEEP);
        sampler.sample();
        assertThat(projection.walked.get(projection.walked.size() - 1)).startsWith("t2:id-000");
    }

    @Test
    void aPageTheProjectionCannotCheckIsSteppedOverAndTheWalkGoesOn() throws Exception {
        DriftingProjection projection = new DriftingProjection() {
            @Override
            public java.util.Set<String> drifted(List<String> ids) {
                if (ids.contains("id-012")) {
                    throw new IllegalStateException("a row the check cannot read");
                }
                return super.drifted(ids);
            }
        };
        EngineHarness harness = new EngineHarness("drift-sample-failing", Map.of(), projection);
        DriftSampler sampler = sampler(harness, harness.clock, event -> { }, 10);
        projection.drifted.add("id-047");
        sampler.sample();

        Duration foundAfter = null;
        for (Duration elapsed = SWEEP; foundAfter == null && elapsed.compareTo(Duration.ofMinutes(15)) <= 0;
                elapsed = elapsed.plus(SWEEP)) {
            harness.clock.advance(SWEEP);
            sampler.sample();
            foundAfter = harness.pending() > 0 ? elapsed : null;
        }
        assertThat(foundAfter).as("the walk went round past the failing page and reached id-047").isNotNull();
    }

    @Test
    void aKeyWithAMarkWaitingIsNotDriftFoundItsRefreshIsComing() throws Exception {
        DriftingProjection projection = new DriftingProjection();
        EngineHarness harness = new EngineHarness("drift-sample-waiting", Map.of(), projection);
        List<LifecycleEvent> told = new CopyOnWriteArrayList<>();
        DriftSampler sampler = sampler(harness, harness.clock, told::add, 60);
        projection.drifted.addAll(List.of("id-003", "id-004"));
        harness.mark("checked", "id-003"); // a live change not refreshed yet (or a parked key)
        sampler.sample();

        harness.clock.advance(Duration.ofMinutes(1));
        assertThat(sampler.sample()).isEqualTo(60);
        assertThat(told).singleElement().isInstanceOfSatisfying(DriftFound.class,
                event -> assertThat(event.ids()).containsExactly("id-004"));
        assertThat(harness.stats.drifted("checked")).isEqualTo(1);
    }

    @Test
    void ofTwoInstancesOneHoldsTheTurnAndTheOtherSkipsItOnH2() throws Exception {
        EngineHarness harness = new EngineHarness("drift-sample-lock", Map.of(), new DriftingProjection());
        oneOfTwoTakesTheTurn(harness.store, harness::connect);
    }

    @Test
    void ofTwoInstancesOneHoldsTheTurnAndTheOtherSkipsItOnPostgresql() throws Exception {
        String url = LiquibaseSchema.freshPostgresSchema("drift_sample_turn");
        TestDatabase database = TestDatabase.get();
        oneOfTwoTakesTheTurn(Tables.forProduct("PostgreSQL"),
                () -> DriverManager.getConnection(url, database.user(), database.password()));
    }

    @Test
    void ofTwoInstancesOneHoldsTheTurnAndTheOtherSkipsItOnMariadb() throws Exception {
        String url = LiquibaseSchema.freshMariaDb("drift_sample_turn");
        dev.projections.testsupport.MariaDbTestDatabase server = LiquibaseSchema.mariaDb();
        oneOfTwoTakesTheTurn(Tables.forProduct("MariaDB"), () -> server.connect(url));
    }

    private interface Connect {
        Connection open() throws java.sql.SQLException;
    }

    /** A holds the sample's row for its turn; B, at the same time, is told at once that it is not its turn. */
    private static void oneOfTwoTakesTheTurn(Tables store, Connect connect) throws Exception {
        DriftTable drift = store.drift();
        Instant start = Instant.parse("2026-12-06T10:00:00.123456Z");
        try (Connection a = connect.open(); Connection b = connect.open()) {
            drift.start(a, "orders", start);
            drift.start(a, "orders", start.plusSeconds(1)); // a second start keeps the row as it is
            a.setAutoCommit(false);
            b.setAutoCommit(false);
            store.beginEngineTransaction(a);
            store.beginEngineTransaction(b);
            SampleTurn held = drift.lock(a, "orders").orElseThrow();
            assertThat(held.sampledAt()).as("read back as written, to the microsecond").isEqualTo(start);

            assertThat(drift.lock(b, "orders")).as("A holds the turn: B skips it, without waiting").isEmpty();
            drift.advance(a, "orders", "", "id-009", start.plusSeconds(6));
            a.commit();
            b.commit();

            store.beginEngineTransaction(b);
            assertThat(drift.lock(b, "orders")).as("the next turn, as A left it")
                    .contains(new SampleTurn("", "id-009", start.plusSeconds(6)));
            b.commit();
        }
    }

    /** 8 ids in every tenant, recording each page it was asked for as "tenant:first..last". */
    static final class TenantPages implements dev.projections.Projection, dev.projections.Verifiable {
        static final ThreadLocal<String> TENANT = ThreadLocal.withInitial(() -> "");
        final List<String> walked = new CopyOnWriteArrayList<>();
        final java.util.Set<String> drifted = java.util.concurrent.ConcurrentHashMap.newKeySet();

        @Override
        public String name() {
            return "checked";
        }

        @Override
        public void refresh(String id) {
            drifted.remove(TENANT.get() + "/" + id);
        }

        @Override
        public List<String> ids(String after, int limit) {
            return java.util.stream.IntStream.range(0, 8).mapToObj(i -> String.format("id-%03d", i))
                    .filter(id -> after == null || id.compareTo(after) > 0).limit(limit).toList();
        }

        @Override
        public java.util.Set<String> drifted(List<String> ids) {
            if (!ids.isEmpty()) {
                walked.add(TENANT.get() + ":" + ids.get(0) + ".." + ids.get(ids.size() - 1));
            }
            return ids.stream().filter(id -> drifted.contains(TENANT.get() + "/" + id))
                    .collect(java.util.stream.Collectors.toSet());
        }
    }

    private static DriftSampler sampler(EngineHarness harness, Clock clock, java.util.function.Consumer<LifecycleEvent> told,
                                        int rate) {
        return new DriftSampler(harness.store, harness.transactions, clock, harness.catalog(), TenantScope.NONE, null,
                name -> rate, name -> 5000, Duration.ofMinutes(2), harness.stats,
                new LifecycleAnnouncer(told::accept, harness.stats, clock, null));
    }

    /** With a tenant directory, entering each tenant as {@link TenantPages#TENANT}. */
    private static DriftSampler sampler(EngineHarness harness, java.util.function.Consumer<LifecycleEvent> told,
                                        int rate, java.util.function.Supplier<List<String>> tenants,
                                        TenantPages projection) {
        TenantScope scope = tenant -> {
            TenantPages.TENANT.set(tenant);
            return () -> TenantPages.TENANT.remove();
        };
        return new DriftSampler(harness.store, harness.transactions, harness.clock, harness.catalog(), scope, tenants,
                name -> rate, name -> 5000, Duration.ofMinutes(2), harness.stats,
                new LifecycleAnnouncer(told::accept, harness.stats, harness.clock, null));
    }

    private static long driftedSince(EngineHarness harness, Instant since) throws Exception {
        return harness.transactions.inNewTransaction(Duration.ofSeconds(5),
                connection -> harness.store.drift().driftedSince(connection, "checked", since));
    }
}
