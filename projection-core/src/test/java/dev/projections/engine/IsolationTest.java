package dev.projections.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.MarkKey;
import dev.projections.Projection;
import dev.projections.config.ProjectionSettings;
import dev.projections.config.SettingSource;
import dev.projections.config.Settings;
import dev.projections.refresh.DrainerOrigin;
import dev.projections.refresh.ProjectionCatalog;
import dev.projections.store.LiquibaseSchema;
import dev.projections.store.PendingQueue;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Isolation between projections (docs/design.md D45), through the assembled engine on H2 with real drainer threads:
 * projection {@code slow}'s refreshes hold on a latch the test opens, with 1,000 marks due, so "slow" is as slow as
 * the test wants and no sleep decides anything. While every one of its refreshes holds, it never has more drainers
 * than its cap, and projection {@code fast}'s commits and backlog are refreshed all the same; once the latch opens,
 * every slow mark is refreshed too.
 */
class IsolationTest {

    private static final int WORKERS = 4;
    private static final int SLOW_MARKS = 1_000;

    private final CountDownLatch releaseSlow = new CountDownLatch(1);
    private final AtomicInteger slowRunning = new AtomicInteger();
    private final AtomicInteger slowPeak = new AtomicInteger();
    private final Set<String> slowRefreshed = ConcurrentHashMap.newKeySet();
    private final Map<String, CountDownLatch> fastRefreshed = new ConcurrentHashMap<>();
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private volatile CountDownLatch slowEntered = new CountDownLatch(1);
    /** A second slow projection, held on the same latch. */
    private final AtomicInteger slowerRunning = new AtomicInteger();
    private volatile CountDownLatch slowerEntered = new CountDownLatch(1);
    private JdbcDataSource dataSource;
    private Engine engine;

    @BeforeEach
    void database() throws Exception {
        dataSource = new JdbcDataSource();
        dataSource.setURL(LiquibaseSchema.freshH2("isolation"));
        dataSource.setUser("sa");
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            statement.executeUpdate("DELETE FROM projection_pending");
        }
    }

    @AfterEach
    void stop() throws Exception {
        releaseSlow.countDown();
        if (engine != null) {
            engine.stop();
        }
        threads.shutdownNow();
        assertThat(threads.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void aSlowProjectionHoldsAtMostAllButOneDrainerAndAnotherProjectionsCommitsAreRefreshedMeanwhile() throws Exception {
        engine = engine(Map.of());
        slowEntered = new CountDownLatch(WORKERS - 1);
        markSlowBacklog();
        engine.drainers().startIfSlotFree(DrainerOrigin.SWEEP);
        assertThat(slowEntered.await(10, TimeUnit.SECONDS)).as("slow has its cap of drainers, all held").isTrue();

        fastCommitsAreRefreshedWhileSlowHolds();

        assertThat(slowPeak).as("the default cap: projection.workers less one").hasValue(WORKERS - 1);
        assertThat(engine.handoff().busy("slow")).isEqualTo(WORKERS - 1);
        releaseSlow.countDown();
        awaitSlowDone();
        assertThat(slowPeak).as("never more than its cap, to the end").hasValue(WORKERS - 1);
    }

    @Test
    void aCapSetForTheProjectionBoundsItsDrainersAndAnotherProjectionsBacklogIsDrainedBeside() throws Exception {
        engine = engine(Map.of("projection.slow.workers", "2"));
        slowEntered = new CountDownLatch(2);
        markSlowBacklog();
        List<CountDownLatch> fastBacklog = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            fastBacklog.add(expectFast("backlog-" + i));
            mark("fast", "backlog-" + i); // due, handed to nobody: the sweep's to find
        }

        engine.drainers().startIfSlotFree(DrainerOrigin.SWEEP);

        assertThat(slowEntered.await(10, TimeUnit.SECONDS)).isTrue();
        for (CountDownLatch refreshed : fastBacklog) {
            assertThat(refreshed.await(10, TimeUnit.SECONDS)).as("fast's backlog drained beside slow's").isTrue();
        }
        fastCommitsAreRefreshedWhileSlowHolds();
        assertThat(slowPeak).hasValue(2);
        releaseSlow.countDown();
        awaitSlowDone();
        assertThat(slowPeak).hasValue(2);
    }

    /**
     * Three projections, two of them slow with backlogs (docs/design.md D45, the reserve): between them the slow ones
     * hold every drainer but one, which stays for the third, so its commits are refreshed while every slow refresh
     * holds. Without the reserve the second slow lane took the last drainer too.
     */
    @Test
    void twoSlowProjectionsLeaveADrainerForAThirdProjectionsCommits() throws Exception {
        engine = engine(Map.of());
        markSlowBacklog();
        markBacklog("slower");
        engine.drainers().startIfSlotFree(DrainerOrigin.SWEEP);
        assertThat(slowEntered.await(10, TimeUnit.SECONDS)).as("slow holds a drainer").isTrue();
        assertThat(slowerEntered.await(10, TimeUnit.SECONDS)).as("slower holds a drainer").isTrue();
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (slowRunning.get() + slowerRunning.get() < WORKERS - 1 && System.nanoTime() < until) {
            Thread.sleep(5); // the backlogs' helpers take their turns
        }

        fastCommitsAreRefreshedWhileSlowHolds();

        assertThat(slowRunning.get() + slowerRunning.get()).as("the slow ones hold all but one drainer")
                .isEqualTo(WORKERS - 1);
        releaseSlow.countDown();
        awaitSlowDone();
    }

    /**
     * Twenty commits of fast, each refreshed while every slow refresh holds. Before each, a sweep's ask makes slow's
     * backlog due to every drainer that looks: were slow not capped, the drainers serving fast would take it one by
     * one and hold, and a commit would find none left.
     */
    private void fastCommitsAreRefreshedWhileSlowHolds() throws Exception {
        for (int i = 0; i < 20; i++) {
            engine.drainers().startIfSlotFree(DrainerOrigin.SWEEP);
            String id = "order-" + i;
            CountDownLatch refreshed = expectFast(id);
            MarkKey key = mark("fast", id);
            engine.drainers().committed(Set.of(key));
            assertThat(refreshed.await(10, TimeUnit.SECONDS))
                    .as("fast's commit %s refreshed while every slow refresh holds", id).isTrue();
        }
    }

    private Engine engine(Map<String, String> overrides) {
        Map<String, String> values = new HashMap<>(Map.of(
                "projection.workers", Integer.toString(WORKERS),
                "projection.batch-size", "10",
                "projection.sweep-interval", "1h"));
        values.putAll(overrides);
        SettingSource source = SettingSource.of(values);
        ProjectionCatalog catalog = catalog();
        Settings settings = ProjectionSettings.resolve(Settings.load(source), source,
                catalog.names().stream().map(catalog::byName).toList());
        return Engine.builder()
                .dataSource(dataSource)
                .settings(settings)
                .projections(catalog)
                .container(PlainContainer.on(dataSource, threads))
                .instanceId("isolation-test")
                .withoutRebuildSteps()
                .build();
    }

    private void markSlowBacklog() throws Exception {
        markBacklog("slow");
    }

    private void markBacklog(String projection) throws Exception {
        List<MarkKey> keys = new ArrayList<>();
        for (int i = 0; i < SLOW_MARKS; i++) {
            keys.add(new MarkKey(projection, "", String.format("%04d", i)));
        }
        engine.transactions().inNewTransaction(Duration.ofSeconds(30), connection -> {
            engine.store().queue().upsert(connection, keys, PendingQueue.LIVE, engine.clock().instant());
            return null;
        });
    }

    private MarkKey mark(String projection, String id) throws Exception {
        return Marks.mark(engine, projection, id);
    }

    private CountDownLatch expectFast(String id) {
        return fastRefreshed.computeIfAbsent(id, ignored -> new CountDownLatch(1));
    }

    private void awaitSlowDone() throws InterruptedException {
        // the drainers end their turns and take the rest; the sweep's look is the test's
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (slowRefreshed.size() < SLOW_MARKS && System.nanoTime() < until) {
            engine.drainers().startIfSlotFree(DrainerOrigin.SWEEP);
            Thread.sleep(10);
        }
        assertThat(slowRefreshed).hasSize(SLOW_MARKS);
    }

    private ProjectionCatalog catalog() {
        Projection slow = new Projection() {
            @Override
            public String name() {
                return "slow";
            }

            @Override
            public void refresh(String id) throws Exception {
                refreshAll(List.of(id));
            }

            @Override
            public void refreshAll(List<String> ids) throws Exception {
                int running = slowRunning.incrementAndGet();
                slowPeak.accumulateAndGet(running, Math::max);
                try {
                    slowEntered.countDown();
                    assertThat(releaseSlow.await(30, TimeUnit.SECONDS)).isTrue();
                    slowRefreshed.addAll(ids);
                } finally {
                    slowRunning.decrementAndGet();
                }
            }
        };
        Projection fast = new Projection() {
            @Override
            public String name() {
                return "fast";
            }

            @Override
            public void refresh(String id) {
                expectFast(id).countDown();
            }
        };
        Projection slower = new Projection() {
            @Override
            public String name() {
                return "slower";
            }

            @Override
            public void refresh(String id) throws Exception {
                refreshAll(List.of(id));
            }

            @Override
            public void refreshAll(List<String> ids) throws Exception {
                slowerRunning.incrementAndGet();
                try {
                    slowerEntered.countDown();
                    assertThat(releaseSlow.await(30, TimeUnit.SECONDS)).isTrue();
                } finally {
                    slowerRunning.decrementAndGet();
                }
            }
        };
        return ProjectionCatalog.of(slow, slower, fast);
    }
}
