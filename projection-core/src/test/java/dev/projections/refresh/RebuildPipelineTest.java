package dev.projections.refresh;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.Projection;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * A rebuild marks its next page once half of its previous page was claimed, while the rest of it is refreshed
 * (docs/contract.md §7, docs/design.md D40), rather than only once the queue runs dry, when every other drainer would
 * wait for the step; every id is still refreshed exactly once, and the queue holds at most about a page and a half.
 */
class RebuildPipelineTest {

    private static final List<String> IDS = IntStream.range(0, 60).mapToObj(i -> String.format("id-%03d", i)).toList();

    /** 60 ids in pages of 25, claimed 10 at a time; what was pending at each claim's refresh is recorded. */
    static final class CountingProjection implements Projection {
        final List<String> refreshed = new ArrayList<>();
        final List<Long> pendingAtClaims = new ArrayList<>();
        EngineHarness harness;

        @Override
        public String name() {
            return "pages";
        }

        @Override
        public void refresh(String id) {
            refreshAll(List.of(id));
        }

        @Override
        public void refreshAll(List<String> ids) {
            try {
                pendingAtClaims.add(harness.pending());
            } catch (java.sql.SQLException e) {
                throw new IllegalStateException(e);
            }
            refreshed.addAll(ids);
        }

        @Override
        public List<String> ids(String after, int limit) {
            return IDS.stream().filter(id -> after == null || id.compareTo(after) > 0).limit(limit).toList();
        }
    }

    @Test
    void theNextPageIsMarkedOnceHalfThePreviousPageWasClaimedAndEveryIdIsRefreshedOnce() throws Exception {
        CountingProjection projection = new CountingProjection();
        EngineHarness harness = new EngineHarness("rebuild-pipeline", Map.of("projection.batch-size", "10"), projection);
        projection.harness = harness;
        RefreshEngine engine = harness.newEngineWithRebuilds(25);
        harness.startRebuild("pages");

        while (engine.drain()) {
            // a turn ends after 5 s; the run needs far less
        }

        assertThat(projection.refreshed).containsExactlyInAnyOrderElementsOf(IDS);
        assertThat(projection.pendingAtClaims)
                .as("page 1 (25); after 20 of it were claimed, page 2 is marked beside its last 5 (30); after 20 more, "
                        + "page 3 (10) beside the last 10 of page 2 (20); never a claim that runs short")
                .containsExactly(25L, 15L, 30L, 20L, 20L, 10L);
        assertThat(harness.pending()).isZero();
    }

    @Test
    void aProjectionsOwnRebuildPageSizeWinsOverTheGlobalOne() throws Exception {
        CountingProjection projection = new CountingProjection();
        EngineHarness harness = new EngineHarness("rebuild-own-page-size",
                Map.of("projection.batch-size", "10", "projection.pages.rebuild-page-size", "25"), projection);
        projection.harness = harness;
        RefreshEngine engine = harness.newEngineWithRebuilds(1000); // the global page, which would mark all 60 at once
        harness.startRebuild("pages");

        while (engine.drain()) {
            // a turn ends after 5 s; the run needs far less
        }

        assertThat(projection.refreshed).containsExactlyInAnyOrderElementsOf(IDS);
        assertThat(projection.pendingAtClaims).as("pages of 25, as in the test above")
                .containsExactly(25L, 15L, 30L, 20L, 20L, 10L);
    }
}
