package dev.projections.refresh;

import dev.projections.RefreshOutcome;
import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.MarkKey;
import dev.projections.Projection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A tenant's batch whose {@code refreshAll} outruns its timeout (docs/contract.md §4 step 6). The interleaving is forced with
 * the engine's clock: when the slow id is in the batch, {@code refreshAll} moves the clock past the refresh
 * timeout (lease / 2) and fails as the transaction reaper would make it; alone, the slow id does the same. Before
 * the fix the whole batch was released unrecorded and claimed again, for ever.
 */
class SlowBatchTest {

    private static final Duration LEASE = Duration.ofMinutes(2);
    private static final String SLOW = "id-042";

    /** Refreshes into a map; any call that includes the slow id takes longer than its timeout. */
    static final class SlowProjection implements Projection {
        final Map<String, Integer> refreshes = new ConcurrentHashMap<>();
        final List<List<String>> batches = new ArrayList<>();
        AdjustableClock clock;
        Runnable duringOneByOne = () -> { };

        @Override
        public String name() {
            return "slow";
        }

        @Override
        public void refresh(String id) {
            duringOneByOne.run();
            if (id.equals(SLOW)) {
                outrunTheTimeout();
            }
            refreshes.merge(id, 1, Integer::sum);
        }

        @Override
        public void refreshAll(List<String> ids) {
            batches.add(List.copyOf(ids));
            if (ids.contains(SLOW)) {
                outrunTheTimeout();
            }
            ids.forEach(id -> refreshes.merge(id, 1, Integer::sum));
        }

        private void outrunTheTimeout() {
            clock.advance(LEASE.dividedBy(2).plusSeconds(1));
            throw new IllegalStateException("ARJUNA012117: the transaction timed out");
        }
    }

    private final SlowProjection projection = new SlowProjection();
    private EngineHarness harness;
    private final List<MarkKey> keys = new ArrayList<>();

    @BeforeEach
    void hundredMarks() throws Exception {
        harness = new EngineHarness("slow-batch", Map.of("projection.lease-time", "2m", "projection.batch-size", "200"),
                projection);
        projection.clock = harness.clock;
        for (int i = 0; i < 100; i++) {
            keys.add(harness.mark("slow", String.format("id-%03d", i)));
        }
    }

    @Test
    void aBatchThatOutrunsItsTimeoutRefreshesTheOthersAloneAndBacksOffTheSlowIdAlone() throws Exception {
        RefreshEngine engine = harness.newEngine();

        assertThat(engine.drain()).as("the drain ends: nothing is due any more").isFalse();

        assertThat(projection.batches.get(0)).as("the claimed batch, first through refreshAll").hasSize(100);
        assertThat(projection.batches.subList(1, projection.batches.size())).as("later batches")
                .noneMatch(batch -> batch.contains(SLOW));
        MarkKey slow = keys.get(42);
        for (MarkKey key : keys) {
            if (!key.equals(slow)) {
                assertThat(harness.row(key)).as("mark of %s", key).isNull();
                assertThat(projection.refreshes.get(key.entityId())).as("refreshes of %s", key).isEqualTo(1);
            }
        }
        EngineHarness.Row row = harness.row(slow);
        assertThat(row.attempts()).as("the slow id's attempt is counted").isEqualTo(1);
        assertThat(row.lastError()).contains("timed out");
        assertThat(row.claimToken()).isNull();
        assertThat(row.availableAt()).as("backing off").isAfter(harness.clock.instant());
        assertThat(harness.outcomes(slow)).containsExactly(RefreshOutcome.FAILED);
    }

    @Test
    void theBatchsOtherTenantsAreGivenBackAtOnceWhenOneTenantsGroupFallsBackToOneByOne() throws Exception {
        // claimed with the slow tenant's group, tenant t2's marks must not wait, held unstarted, for a lease
        List<MarkKey> other = List.of(harness.mark("slow", "t2", "x1"), harness.mark("slow", "t2", "x2"));
        List<String> claimedWhileOneByOne = new ArrayList<>();
        projection.duringOneByOne = () -> {
            for (MarkKey key : other) {
                try {
                    EngineHarness.Row row = harness.row(key);
                    if (row != null && row.claimToken() != null) {
                        claimedWhileOneByOne.add(key.entityId());
                    }
                } catch (java.sql.SQLException e) {
                    throw new IllegalStateException(e);
                }
            }
        };
        RefreshEngine engine = harness.newEngine();

        assertThat(engine.drain()).isFalse();

        assertThat(claimedWhileOneByOne).as("t2's marks held while the slow group went one by one").isEmpty();
        assertThat(harness.row(other.get(0))).isNull();
        assertThat(harness.row(other.get(1))).isNull();
        assertThat(harness.row(keys.get(42)).attempts()).isEqualTo(1);
    }

    @Test
    void theSlowIdKeepsBackingOffAloneWhileNewChangesOfItsNeighboursAreRefreshed() throws Exception {
        RefreshEngine engine = harness.newEngine();
        engine.drain();
        harness.mark("slow", "id-041");
        harness.mark("slow", "id-043");

        engine.drain();

        assertThat(projection.refreshes.get("id-041")).isEqualTo(2);
        assertThat(projection.refreshes.get("id-043")).isEqualTo(2);
        assertThat(harness.row(keys.get(42)).attempts()).as("not retried before its backoff").isEqualTo(1);
        Instant due = harness.row(keys.get(42)).availableAt();
        harness.clock.advance(Duration.between(harness.clock.instant(), due));
        engine.drain();
        assertThat(harness.row(keys.get(42)).attempts()).as("retried alone once due").isEqualTo(2);
        assertThat(harness.pending()).isEqualTo(1);
        assertThat(Set.copyOf(harness.outcomes(keys.get(42)))).containsOnly(RefreshOutcome.FAILED);
    }
}
