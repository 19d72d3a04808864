package dev.projections.refresh;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.Projection;
import dev.projections.RebuildProgress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * A rebuild under steady live traffic (the engine review's E4): every refresh of a live key sees a new commit of the
 * projection arrive, so no claim of it ever comes back empty. The run must step all the same — each claim that comes
 * back short steps it — rather than wait for the traffic to stop.
 */
class RebuildUnderLiveLoadTest {

    private static final List<String> IDS = IntStream.range(0, 30).mapToObj(i -> String.format("id-%02d", i)).toList();
    private static final int LIVE_COMMITS = 40;

    private EngineHarness harness;
    private String runId;
    private final AtomicInteger commits = new AtomicInteger();
    /** The run's marked ids, as each live refresh saw it. */
    private final List<Long> markedSeenByLiveRefreshes = new CopyOnWriteArrayList<>();
    private final List<String> rebuilt = new CopyOnWriteArrayList<>();

    private final Projection busy = new Projection() {
        @Override
        public String name() {
            return "busy";
        }

        @Override
        public void refresh(String id) throws Exception {
            if (!id.startsWith("live-")) {
                rebuilt.add(id);
                return;
            }
            markedSeenByLiveRefreshes.add(progress().marked());
            int next = commits.incrementAndGet();
            if (next < LIVE_COMMITS) {
                harness.mark("busy", "live-" + next); // another user's commit, while this refresh runs
            }
        }

        @Override
        public List<String> ids(String after, int limit) {
            return IDS.stream().filter(id -> after == null || id.compareTo(after) > 0).limit(limit).toList();
        }
    };

    @Test
    void aRebuildStepsWhileEveryClaimOfItsProjectionHoldsLiveMarks() throws Exception {
        harness = new EngineHarness("rebuild-under-live-load", Map.of("projection.batch-size", "10"), busy);
        RefreshEngine engine = harness.newEngineWithRebuilds(10);
        runId = harness.startRebuild("busy");
        harness.mark("busy", "live-0");

        for (int drains = 0; drains < 100 && engine.drain(); drains++) {
            // the live traffic and the run
        }
        while (engine.drain()) {
            // what is left once the traffic stopped
        }

        assertThat(commits).as("the live traffic ran its course").hasValueGreaterThanOrEqualTo(LIVE_COMMITS);
        assertThat(markedSeenByLiveRefreshes.subList(0, LIVE_COMMITS / 2))
                .as("the run stepped while live commits kept coming, not after")
                .anySatisfy(marked -> assertThat(marked).isPositive());
        RebuildProgress done = progress();
        assertThat(done.state()).isEqualTo(RebuildProgress.FINISHED);
        assertThat(rebuilt).containsExactlyInAnyOrderElementsOf(IDS);
    }

    /**
     * A live backlog: 100 live marks due, and each live refresh commits one more, so every claim of the projection comes
     * back full of live marks until the traffic stops after {@value #BACKLOG_COMMITS} commits. One claim in four is the
     * run's (RebuildPacing.REBUILD_SHARE): the run of 30 ids in pages of 10, claimed 10 at a time, finishes while the
     * backlog still stands, within 4 × (3 pages + 3 batches + 1) turns, i.e. fewer than 280 live refreshes.
     */
    @Test
    void aRebuildFinishesWhileALiveBacklogFillsEveryLiveClaimOfItsProjection() throws Exception {
        harness = new EngineHarness("rebuild-beside-backlog", Map.of("projection.batch-size", "10"), backlogged);
        RefreshEngine engine = harness.newEngineWithRebuilds(10);
        runId = harness.startRebuild("busy");
        for (int i = 0; i < 100; i++) {
            harness.mark("busy", "live-backlog-" + i);
        }

        while (engine.drain()) {
            // the backlog, the traffic and the run
        }

        assertThat(commits).as("the live traffic ran its course").hasValue(BACKLOG_COMMITS);
        assertThat(liveRefreshesWhenTheRunEnded.get()).as("the run ended while the live backlog stood")
                .isPositive().isLessThan(280);
        assertThat(progress().state()).isEqualTo(RebuildProgress.FINISHED);
        assertThat(rebuilt).containsExactlyInAnyOrderElementsOf(IDS);
    }

    private static final int BACKLOG_COMMITS = 600;
    private final AtomicInteger liveRefreshes = new AtomicInteger();
    private final AtomicInteger liveRefreshesWhenTheRunEnded = new AtomicInteger();

    private final Projection backlogged = new Projection() {
        @Override
        public String name() {
            return "busy";
        }

        @Override
        public void refresh(String id) throws Exception {
            if (!id.startsWith("live-")) {
                rebuilt.add(id);
                return;
            }
            int refreshed = liveRefreshes.incrementAndGet();
            if (liveRefreshesWhenTheRunEnded.get() == 0 && !progress().state().equals(RebuildProgress.RUNNING)) {
                liveRefreshesWhenTheRunEnded.set(refreshed);
            }
            if (commits.get() < BACKLOG_COMMITS) {
                harness.mark("busy", "live-" + commits.incrementAndGet());
            }
        }

        @Override
        public List<String> ids(String after, int limit) {
            return IDS.stream().filter(id -> after == null || id.compareTo(after) > 0).limit(limit).toList();
        }
    };

    private RebuildProgress progress() throws Exception {
        return harness.transactions.inNewTransaction(Duration.ofSeconds(5), connection ->
                harness.store.rebuildHistory().progress(connection, runId, harness.clock.instant()).orElseThrow());
    }
}
