package dev.projections.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.MarkKey;
import dev.projections.Projection;
import dev.projections.RefreshOutcome;
import dev.projections.config.Settings;
import dev.projections.refresh.DrainerOrigin;
import dev.projections.refresh.Handoff;
import dev.projections.refresh.ProjectionCatalog;
import dev.projections.store.LiquibaseSchema;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Batching that follows the load (docs/design.md D41), through the assembled engine on H2 with real drainer threads
 * and a hand-off whose clock the test moves: while a drainer refreshes, the commits that arrive are claimed and
 * refreshed together by one more drainer, not one drainer each; a commit after a quiet spell is refreshed at once.
 * The refresh of key 1 holds on a latch, so "while a drainer refreshes" is the test's to decide.
 */
class BatchingFollowsTheLoadTest {

    private static final int BATCH = 4;
    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
    private final List<List<String>> refreshCalls = Collections.synchronizedList(new ArrayList<>());
    private final CountDownLatch firstRefreshRuns = new CountDownLatch(1);
    private final CountDownLatch releaseFirst = new CountDownLatch(1);
    private final List<String> refreshed = Collections.synchronizedList(new ArrayList<>());
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private Engine engine;
    private Settings settings;
    private javax.sql.DataSource dataSource;

    @BeforeEach
    void engine() throws Exception {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL(LiquibaseSchema.freshH2("batching-follows-load"));
        h2.setUser("sa");
        try (Connection connection = h2.getConnection(); Statement statement = connection.createStatement()) {
            statement.executeUpdate("DELETE FROM projection_pending");
        }
        Properties deployment = new Properties();
        deployment.setProperty(Settings.WORKERS, "3");
        deployment.setProperty(Settings.BATCH_SIZE, Integer.toString(BATCH));
        settings = Settings.load(deployment);
        dataSource = h2;
        // a linger and a keep-alive the test's clock ends, not the machine's
        engine = engine(new Handoff(1000, settings.workers(), Duration.ofMillis(8), Duration.ofHours(1), nanos::get,
                projection -> settings.workers(), projection -> BATCH));
    }

    private Engine engine(Handoff handoff) {
        return Engine.builder()
                .dataSource(dataSource)
                .settings(settings)
                .projections(catalog())
                .container(PlainContainer.on(dataSource, threads))
                .handoff(handoff)
                .observers(Observers.NONE.listener((key, outcome, took) -> {
                    if (outcome != RefreshOutcome.FAILED) {
                        refreshed.add(key.entityId());
                    }
                }))
                .instanceId("test-instance")
                .withoutRebuildSteps()
                .build();
    }

    @AfterEach
    void stop() throws Exception {
        releaseFirst.countDown();
        engine.stop();
        threads.shutdownNow();
        assertThat(threads.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void commitsArrivingWhileADrainerRefreshesAreClaimedAndRefreshedTogetherByOneMoreDrainer() throws Exception {
        commit("1"); // alone: its drainer takes it at once
        assertThat(firstRefreshRuns.await(10, TimeUnit.SECONDS)).isTrue();

        for (String id : List.of("2", "3", "4", "5")) {
            nanos.addAndGet(Duration.ofMillis(1).toNanos()); // a burst: a millisecond apart
            commit(id);
        }
        awaitRefreshed(4);

        assertThat(refreshCalls).as("key 1 alone, the burst in one refreshAll (one claim, one ack)")
                .containsExactly(List.of("1"), List.of("2", "3", "4", "5"));
        assertThat(engine.stats().drainersStarted(DrainerOrigin.HANDOFF))
                .as("one drainer for key 1, one more for the four that came while it worked").isEqualTo(2);
        releaseFirst.countDown();
        awaitRefreshed(5);
    }

    @Test
    void aCommitAfterAQuietSpellIsRefreshedAtOnceByADrainerStayingForIt() throws Exception {
        releaseFirst.countDown();
        commit("1");
        awaitRefreshed(1);
        nanos.addAndGet(Duration.ofSeconds(1).toNanos()); // quiet; the drainer stays (keep-alive not over)
        awaitCollecting();

        commit("2");

        awaitRefreshed(2);
        assertThat(engine.stats().drainersStarted(DrainerOrigin.HANDOFF))
                .as("the drainer that stayed took it: no thread started for it").isEqualTo(1);
        assertThat(refreshCalls).containsExactly(List.of("1"), List.of("2"));
    }

    @Test
    void aSweepThatFindsADrainerCollectingAsksItToLookThenItServesCommitsAsBefore() throws Exception {
        releaseFirst.countDown();
        commit("1");
        awaitRefreshed(1);
        awaitCollecting();
        MarkKey orphan = mark("2"); // due, handed to nobody: another instance's leftover, say

        assertThat(engine.drainers().startIfSlotFree(DrainerOrigin.SWEEP)).as("a drainer will look").isTrue();

        awaitRefreshed(2);
        assertThat(refreshed).contains(orphan.entityId());
        awaitCollecting();
        nanos.addAndGet(Duration.ofSeconds(1).toNanos());
        commit("3");
        awaitRefreshed(3);
        assertThat(engine.stats().drainersStarted(DrainerOrigin.SWEEP)).as("the collecting one looked").isZero();
        assertThat(engine.stats().drainersStarted(DrainerOrigin.HANDOFF)).as("and took the next commit").isEqualTo(1);
    }

    /**
     * A drainer that left the due claim out (one came back short, and on the test's clock the interval never ends)
     * still looks once before it ends: a mark nobody handed over — written here while it refreshed, as a handed key
     * a claim by key skipped would be — is refreshed without the sweep (whose interval may be an hour).
     */
    @Test
    void aDrainerLooksForDueMarksOnceMoreBeforeItEnds() throws Exception {
        engine.stop();
        engine = engine(new Handoff(1000, settings.workers(), Duration.ZERO, Duration.ZERO, nanos::get,
                projection -> settings.workers(), projection -> BATCH));
        commit("1");
        assertThat(firstRefreshRuns.await(10, TimeUnit.SECONDS)).isTrue();
        MarkKey orphan = mark("2"); // after the drainer's first claim looked and found nothing else due

        releaseFirst.countDown();

        awaitRefreshed(2);
        assertThat(refreshed).containsExactly("1", orphan.entityId());
        assertThat(engine.stats().drainersStarted(DrainerOrigin.HANDOFF)).as("the same drainer").isEqualTo(1);
    }

    private void commit(String id) throws Exception {
        engine.drainers().committed(Set.of(mark(id)));
    }

    private MarkKey mark(String id) throws Exception {
        return Marks.mark(engine, "orders", id);
    }

    private void awaitRefreshed(int n) throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (refreshed.size() < n && System.nanoTime() < until) {
            Thread.sleep(1);
        }
        assertThat(refreshed).hasSizeGreaterThanOrEqualTo(n);
    }

    private void awaitCollecting() throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (engine.handoff().collecting() < 1 && System.nanoTime() < until) {
            Thread.sleep(1);
        }
        assertThat(engine.handoff().collecting()).isEqualTo(1);
    }

    private ProjectionCatalog catalog() {
        Projection orders = new Projection() {
            @Override
            public String name() {
                return "orders";
            }

            @Override
            public void refresh(String id) throws Exception {
                refreshAll(List.of(id));
            }

            @Override
            public void refreshAll(List<String> ids) throws Exception {
                refreshCalls.add(List.copyOf(ids));
                if (ids.contains("1") && firstRefreshRuns.getCount() > 0) {
                    firstRefreshRuns.countDown();
                    assertThat(releaseFirst.await(10, TimeUnit.SECONDS)).isTrue();
                }
            }
        };
        return ProjectionCatalog.of(orders);
    }
}
