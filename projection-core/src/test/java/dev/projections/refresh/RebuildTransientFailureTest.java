package dev.projections.refresh;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.Projection;
import dev.projections.RebuildProgress;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * A rebuild step whose {@code ids} meets a timeout or a lost connection rolls back and is stepped again from its
 * cursor once its lease lapses (docs/contract.md §7): the run stays RUNNING and ends FINISHED; only an {@code ids}
 * that is wrong fails a run.
 */
class RebuildTransientFailureTest {

    private static final List<String> IDS = IntStream.range(0, 30).mapToObj(i -> String.format("id-%02d", i)).toList();

    static final class FlakyProjection implements Projection {
        final List<String> refreshed = new CopyOnWriteArrayList<>();
        int calls;

        @Override
        public String name() {
            return "flaky";
        }

        @Override
        public void refresh(String id) {
            refreshed.add(id);
        }

        @Override
        public List<String> ids(String after, int limit) {
            if (++calls == 2) {
                throw new IllegalStateException("query failed", new SQLTransientConnectionException("connection reset"));
            }
            return IDS.stream().filter(id -> after == null || id.compareTo(after) > 0).limit(limit).toList();
        }
    }

    @Test
    void aStepWhoseIdsTimesOutIsSteppedAgainFromItsCursorAndTheRunFinishes() throws Exception {
        FlakyProjection projection = new FlakyProjection();
        EngineHarness harness = new EngineHarness("rebuild-transient", Map.of("projection.batch-size", "10"), projection);
        RefreshEngine engine = harness.newEngineWithRebuilds(10);
        String runId = harness.startRebuild("flaky");

        while (engine.drain()) {
            // until the flaky step: its partition's lease holds the run back
        }
        assertThat(progress(harness, runId).state()).as("not failed by a transient error").isEqualTo(RebuildProgress.RUNNING);

        harness.clock.advance(Duration.ofMinutes(10)); // the rolled-back step's lease lapses
        while (engine.drain()) {
            // the rest of the run
        }
        RebuildProgress done = progress(harness, runId);
        assertThat(done.state()).isEqualTo(RebuildProgress.FINISHED);
        assertThat(done.marked()).as("each id once: the failed page was not counted").isEqualTo(IDS.size());
        assertThat(projection.refreshed).containsExactlyInAnyOrderElementsOf(IDS);
    }

    private static RebuildProgress progress(EngineHarness harness, String runId) throws Exception {
        return harness.transactions.inNewTransaction(Duration.ofSeconds(5), connection ->
                new dev.projections.store.RebuildStore().progress(connection, runId, harness.clock.instant()).orElseThrow());
    }
}
