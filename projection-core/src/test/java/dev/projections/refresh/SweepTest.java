package dev.projections.refresh;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The sweep's order of steps and its rules (docs/contract.md §5), with steps that record what ran. */
class SweepTest {

    private final List<String> ran = java.util.Collections.synchronizedList(new ArrayList<>());
    private final List<DatabaseTroubleException> recorded = new ArrayList<>();
    private final AtomicInteger reported = new AtomicInteger();
    private final Sweep.Troubles troubles = new Sweep.Troubles() {
        @Override
        public void record(DatabaseTroubleException e) {
            recorded.add(e);
        }

        @Override
        public void report() {
            reported.incrementAndGet();
        }
    };

    private Sweep.Step step(String name) {
        return new Sweep.Step(name, () -> ran.add(name));
    }

    private Sweep.Step failing(String name) {
        return new Sweep.Step(name, () -> {
            ran.add(name);
            throw new DatabaseTroubleException(name + " failed", null);
        });
    }

    @Test
    void theEnginesSweepRunsItsStepsInTheDocumentedOrder() {
        Handoff handoff = new Handoff(10, 1);
        Sweep sweep = Sweep.of(null, handoff, null, null, null, null, null, null, troubles, new EngineStats());
        assertThat(sweep.stepNames()).containsExactly("reclaim lost slots", "heartbeat", "finish rebuilds",
                "probe suspended projections", "start a drainer", "report the node", "count processing nodes",
                "sample trends", "sample for drift", "prune history");
    }

    @Test
    void aWebNodesSweepOnlyBeatsReportsAndCountsTheProcessingNodes() {
        Sweep sweep = Sweep.ofWebNode(null, () -> false, troubles, new EngineStats());
        assertThat(sweep.stepNames()).containsExactly("heartbeat", "report the node", "count processing nodes");
    }

    @Test
    void stepsRunInOrderThenTheReportsAndTheTroubleIsReportedOncePerSweep() {
        EngineStats stats = new EngineStats();
        new Sweep(List.of(step("a"), step("b")), List.of(step("report"), step("sample")), () -> false, troubles, stats)
                .run();
        assertThat(ran).containsExactly("a", "b", "report", "sample");
        assertThat(reported).hasValue(1);
    }

    @Test
    void databaseTroubleEndsTheSweepWhereItHappenedWhileAFailingReportDoesNotStopTheOther() {
        new Sweep(List.of(step("a"), failing("b"), step("c")), List.of(step("report")), () -> false, troubles,
                new EngineStats()).run();
        assertThat(ran).containsExactly("a", "b");
        assertThat(recorded).extracting(Throwable::getMessage).containsExactly("b failed");

        ran.clear();
        recorded.clear();
        new Sweep(List.of(step("a")), List.of(failing("report"), step("sample")), () -> false, troubles,
                new EngineStats()).run();
        assertThat(ran).containsExactly("a", "report", "sample");
        assertThat(recorded).hasSize(1);
        assertThat(reported).hasValue(2);
    }

    @Test
    void noSweepRunsOnceTheEngineStopsAndSweepsNeverOverlap() throws Exception {
        AtomicBoolean stopping = new AtomicBoolean(true);
        new Sweep(List.of(step("a")), List.of(), stopping::get, troubles, new EngineStats()).run();
        assertThat(ran).isEmpty();

        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Sweep held = new Sweep(List.of(new Sweep.Step("held", () -> {
            ran.add("held");
            inside.countDown();
            try {
                release.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        })), List.of(), () -> false, troubles, new EngineStats());
        Thread first = new Thread(held::run);
        first.start();
        assertThat(inside.await(10, TimeUnit.SECONDS)).isTrue();
        held.run(); // while the first is inside: returns at once
        release.countDown();
        first.join(10_000);
        assertThat(ran).containsExactly("held");
        held.run();
        assertThat(ran).containsExactly("held", "held");
    }

    @Test
    void aDrainerIsStartedOnlyForDueMarksOrARebuildsWork() {
        List<DrainerOrigin> started = new ArrayList<>();
        Sweep.Drainers drainers = new Sweep.Drainers() {
            @Override
            public void startProbes() {
            }

            @Override
            public boolean startIfSlotFree(DrainerOrigin origin) {
                return started.add(origin);
            }
        };
        assertThat(Sweep.startDrainer(() -> false, () -> false, drainers)).isFalse();
        assertThat(started).isEmpty();
        assertThat(Sweep.startDrainer(() -> true, () -> false, drainers)).isTrue();
        assertThat(Sweep.startDrainer(() -> false, () -> true, drainers)).isTrue();
        assertThat(started).containsExactly(DrainerOrigin.SWEEP, DrainerOrigin.SWEEP);
    }

    @Test
    void aSlotReservedButNeverRunIsTakenBackAtTheSecondSweepThatSeesIt() {
        Handoff handoff = new Handoff(10, 2);
        assertThat(handoff.tryReserve()).isNotNull(); // its drainer never runs
        assertThat(Sweep.reclaimLostSlots(handoff)).as("first sweep: perhaps only queued").isZero();
        assertThat(Sweep.reclaimLostSlots(handoff)).isEqualTo(1);
        assertThat(handoff.tryReserve()).as("the slot is free again").isNotNull();
    }
}
