package dev.projections.refresh;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.Projection;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * A rebuild marks its next page while its previous page's last marks are refreshed (docs/contract.md §7), rather
 * than only once the queue is empty; every id is still refreshed exactly once.
 */
class RebuildPipelineTest {

    private static final List<String> IDS = IntStream.range(0, 60).mapToObj(i -> String.format("id-%03d", i)).toList();

    /** 60 ids in pages of 25, claimed 10 at a time: the third claim of pages 1 and 2 is short (5). */
    static final class CountingProjection implements Projection {
        final List<String> refreshed = new ArrayList<>();
        final List<Long> pendingAtShortClaims = new ArrayList<>();
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
            if (ids.size() < 10) {
                try {
                    pendingAtShortClaims.add(harness.pending());
                } catch (java.sql.SQLException e) {
                    throw new IllegalStateException(e);
                }
            }
            refreshed.addAll(ids);
        }

        @Override
        public List<String> ids(String after, int limit) {
            return IDS.stream().filter(id -> after == null || id.compareTo(after) > 0).limit(limit).toList();
        }
    }

    @Test
    void theNextPageIsMarkedWhileThePreviousPagesLastMarksAreRefreshedAndEveryIdIsRefreshedOnce() throws Exception {
        CountingProjection projection = new CountingProjection();
        EngineHarness harness = new EngineHarness("rebuild-pipeline", Map.of("projection.batch-size", "10"), projection);
        projection.harness = harness;
        RefreshEngine engine = harness.newEngineWithRebuilds(25);
        harness.startRebuild("pages");

        while (engine.drain()) {
            // a turn ends after 5 s; the run needs far less
        }

        assertThat(projection.refreshed).containsExactlyInAnyOrderElementsOf(IDS);
        assertThat(projection.pendingAtShortClaims)
                .as("refreshing the last 5 of page 1, page 2 (25 ids) is marked too; the last 5 of page 2, page 3 (10)")
                .containsExactly(30L, 15L);
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
        assertThat(projection.pendingAtShortClaims).as("pages of 25, as in the test above").containsExactly(30L, 15L);
    }
}
