package dev.projections.refresh;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.Projection;
import dev.projections.RebuildProgress;
import dev.projections.Verifiable;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * A verification run (docs/design.md D57) steps like a rebuild but marks only what the projection reports drifted:
 * every id is checked once, in pages, the drifted ones are refreshed by the ordinary drainers, and the run finishes
 * once they are, counting the ids it checked and the keys it found.
 */
class VerificationStepTest {

    private static final List<String> IDS = IntStream.range(0, 60).mapToObj(i -> String.format("id-%03d", i)).toList();

    /** 60 ids; those in {@code drifted} differ from their source until refreshed. */
    static class DriftingProjection implements Projection, Verifiable {
        final Set<String> drifted = new TreeSet<>();
        final List<String> refreshed = new ArrayList<>();
        final List<List<String>> checkedPages = new ArrayList<>();
        /** Read-model rows whose source is gone: listed by readModelIds only, until their refresh deletes them. */
        final Set<String> orphans = new TreeSet<>();
        /** When set, every refresh fails: a drifted key's mark stays pending. */
        volatile boolean refreshFails;

        @Override
        public String name() {
            return "checked";
        }

        @Override
        public void refresh(String id) {
            if (refreshFails) {
                throw new IllegalStateException("the read model's database is away");
            }
            refreshed.add(id);
            drifted.remove(id);
            orphans.remove(id);
        }

        @Override
        public List<String> readModelIds(String after, int limit) {
            TreeSet<String> rows = new TreeSet<>(IDS);
            rows.addAll(orphans);
            return rows.stream().filter(id -> after == null || id.compareTo(after) > 0).limit(limit).toList();
        }

        @Override
        public List<String> ids(String after, int limit) {
            return IDS.stream().filter(id -> after == null || id.compareTo(after) > 0).limit(limit).toList();
        }

        @Override
        public Set<String> drifted(List<String> ids) {
            checkedPages.add(List.copyOf(ids));
            // an id off the page is ignored by the engine: only the page was asked about
            Set<String> found = new TreeSet<>(Set.of("not-on-any-page"));
            ids.stream().filter(id -> drifted.contains(id) || orphans.contains(id)).forEach(found::add);
            return found;
        }
    }

    @Test
    void aVerificationChecksEveryIdOnceAndMarksOnlyTheDriftedOnesWhichTheDrainersRepair() throws Exception {
        DriftingProjection projection = new DriftingProjection();
        projection.drifted.addAll(List.of("id-003", "id-031", "id-059"));
        EngineHarness harness = new EngineHarness("verification-step", Map.of("projection.batch-size", "10"),
                projection);
        RefreshEngine engine = harness.newEngineWithRebuilds(25);
        String runId = harness.startVerification("checked");

        while (engine.drain()) {
            // a turn ends after 5 s; the run needs far less
        }
        harness.lastEngine().rebuilds().finishExhausted();

        assertThat(projection.checkedPages).as("pages of 25: every id once, then the read model's").containsExactly(
                IDS.subList(0, 25), IDS.subList(25, 50), IDS.subList(50, 60),
                IDS.subList(0, 25), IDS.subList(25, 50), IDS.subList(50, 60));
        assertThat(projection.refreshed).containsExactlyInAnyOrder("id-003", "id-031", "id-059");
        assertThat(projection.drifted).isEmpty();
        RebuildProgress run = harness.progress(runId);
        assertThat(run.verifies()).isTrue();
        assertThat(run.state()).isEqualTo(RebuildProgress.FINISHED);
        assertThat(run.checked()).as("the write model's ids and the read model's").isEqualTo(120);
        assertThat(run.marked()).as("drifted").isEqualTo(3);
        assertThat(run.repaired()).hasValue(3);
        assertThat(harness.pending()).isZero();
        assertThat(harness.stats.drifted("checked")).as("projection.drift").isEqualTo(3);
        long recorded = harness.transactions.inNewTransaction(java.time.Duration.ofSeconds(5), connection ->
                harness.store.drift().driftedSince(connection, "checked", java.time.Instant.EPOCH));
        assertThat(recorded)
                .as("recorded for the console's day of drift").isEqualTo(3);
    }

    @Test
    void aVerificationThatFindsNothingMarksNothingAndFinishes() throws Exception {
        DriftingProjection projection = new DriftingProjection();
        EngineHarness harness = new EngineHarness("verification-none", Map.of(), projection);
        RefreshEngine engine = harness.newEngineWithRebuilds(25);
        String runId = harness.startVerification("checked");

        while (engine.drain()) {
            // a turn ends after 5 s; the run needs far less
        }
        harness.lastEngine().rebuilds().finishExhausted();

        assertThat(projection.refreshed).isEmpty();
        RebuildProgress run = harness.progress(runId);
        assertThat(run.state()).isEqualTo(RebuildProgress.FINISHED);
        assertThat(run.checked()).isEqualTo(120);
        assertThat(run.marked()).isZero();
    }

    @Test
    void aVerificationAlsoWalksTheReadModelsOwnIdsAndFindsARowWhoseSourceIsGone() throws Exception {
        DriftingProjection projection = new DriftingProjection();
        projection.orphans.addAll(List.of("id-0305", "zz-gone")); // between two sources, and after the last
        EngineHarness harness = new EngineHarness("verification-orphans", Map.of(), projection);
        RefreshEngine engine = harness.newEngineWithRebuilds(25);
        String runId = harness.startVerification("checked");

        while (engine.drain()) {
            // a turn ends after 5 s; the run needs far less
        }
        harness.lastEngine().rebuilds().finishExhausted();

        assertThat(projection.refreshed).as("the refresh deletes the rows").containsExactlyInAnyOrder("id-0305",
                "zz-gone");
        assertThat(projection.orphans).isEmpty();
        RebuildProgress run = harness.progress(runId);
        assertThat(run.state()).isEqualTo(RebuildProgress.FINISHED);
        assertThat(run.checked()).isEqualTo(122);
        assertThat(run.marked()).isEqualTo(2);
        assertThat(run.partitions()).as("the write model's ids, and the read model's").isEqualTo(2);
    }

    @Test
    void aKeyTheRunMarkedAndNotYetRefreshedIsNotDriftFoundAgainByItsReadModelPartition() throws Exception {
        DriftingProjection projection = new DriftingProjection();
        projection.drifted.addAll(List.of("id-003", "id-031", "id-059"));
        projection.refreshFails = true; // the marks wait while the read-model partition checks the same ids
        EngineHarness harness = new EngineHarness("verification-once", Map.of(), projection);
        RefreshEngine engine = harness.newEngineWithRebuilds(25);
        String runId = harness.startVerification("checked");

        while (engine.drain()) {
            // the failed refreshes back off on the harness's clock, which stands still
        }
        harness.lastEngine().rebuilds().finishExhausted();

        assertThat(projection.checkedPages).as("both partitions checked every id").hasSize(6);
        RebuildProgress run = harness.progress(runId);
        assertThat(run.checked()).isEqualTo(120);
        assertThat(run.marked()).as("each drifted key once").isEqualTo(3);
        assertThat(harness.stats.drifted("checked")).isEqualTo(3);
    }

    @Test
    void theReadModelPartitionIsLeasedOnlyOnceTheWriteModelsPartitionsAreAllExhausted() throws Exception {
        EngineHarness harness = new EngineHarness("verification-order", Map.of(), new DriftingProjection());
        harness.newEngineWithRebuilds(25);
        harness.startVerification("checked");
        java.time.Duration lease = java.time.Duration.ofMinutes(2);
        dev.projections.store.RebuildPartitions partitions = harness.store.rebuildPartitions();

        dev.projections.store.RebuildRun ids = harness.transactions.inNewTransaction(lease, c -> partitions.lease(c,
                Set.of("checked"), harness.clock.instant(), lease, "a")).orElseThrow();
        assertThat(ids.walksReadModel()).isFalse();
        java.util.Optional<dev.projections.store.RebuildRun> waiting = harness.transactions.inNewTransaction(lease,
                c -> partitions.lease(c, Set.of("checked"), harness.clock.instant(), lease, "b"));
        assertThat(waiting).as("the write model's partition is still being walked").isEmpty();

        boolean advanced = harness.transactions.inNewTransaction(lease, c -> harness.store.rebuildRuns().advance(c, ids,
                "id-059", 60, 0, true));
        assertThat(advanced).isTrue();
        dev.projections.store.RebuildRun readModel = harness.transactions.inNewTransaction(lease, c -> partitions.lease(c,
                Set.of("checked"), harness.clock.instant(), lease, "b")).orElseThrow();
        assertThat(readModel.walksReadModel()).isTrue();
        assertThat(readModel.cursor()).isNull();
    }
}
