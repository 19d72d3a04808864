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

    /** A run over {@code ids} (60 by default); what was pending at each claim's refresh is recorded. */
    static final class CountingProjection implements Projection {
        final List<String> refreshed = new ArrayList<>();
        final List<Long> pendingAtClaims = new ArrayList<>();
        final List<String> all;
        EngineHarness harness;

        CountingProjection() {
            this(IDS);
        }

        CountingProjection(List<String> ids) {
            this.all = ids;
        }

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
            return all.stream().filter(id -> after == null || id.compareTo(after) > 0).limit(limit).toList();
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

    /** 200 ids in pages of 20, claimed 5 at a time: the queue never holds more than a page and a half of the run. */
    @Test
    void overManyPagesTheQueueHoldsAtMostAPageAndAHalfOfTheRun() throws Exception {
        List<String> many = IntStream.range(0, 200).mapToObj(i -> String.format("id-%03d", i)).toList();
        CountingProjection pages = new CountingProjection(many);
        pages.harness = new EngineHarness("rebuild-pipeline-many", Map.of("projection.batch-size", "5"), pages);
        RefreshEngine engine = pages.harness.newEngineWithRebuilds(20);
        pages.harness.startRebuild("pages");

        while (engine.drain()) {
            // a turn ends after 5 s; the run needs far less
        }

        List<Long> pendingAtClaims = pages.pendingAtClaims;
        List<String> refreshed = pages.refreshed;
        assertThat(refreshed).containsExactlyInAnyOrderElementsOf(many);
        assertThat(pendingAtClaims).as("half a page left, the next is marked: at most 10 + 20")
                .allSatisfy(pending -> assertThat(pending).isLessThanOrEqualTo(30L));
        assertThat(pendingAtClaims).as("and the next page is there before the last one runs out")
                .filteredOn(pending -> pending > 20L).hasSizeGreaterThan(5);
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
