package dev.projections.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.MarkKey;
import dev.projections.Projection;
import dev.projections.config.Settings;
import dev.projections.refresh.DatabaseTroubleException;
import dev.projections.refresh.DrainerOrigin;
import dev.projections.refresh.Handoff;
import dev.projections.refresh.ProjectionCatalog;
import dev.projections.refresh.Sweep;
import dev.projections.store.LiquibaseSchema;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Properties;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * An engine assembled from a {@code DataSource} (H2 made by the real changelog), with threads the test runs by hand:
 * a queued task is a drainer the executor would start, so every step of the hand-off's slot protocol is taken in
 * the order the test gives — no sleeps, no thread timing.
 */
class EngineDrainersTest {

    private final Queue<Runnable> queued = new ArrayDeque<>();
    private final List<String> refreshed = Collections.synchronizedList(new ArrayList<>());
    private final AtomicBoolean refuseThreads = new AtomicBoolean();
    private final AtomicBoolean refuseDoor = new AtomicBoolean();
    private final AtomicInteger troubles = new AtomicInteger();
    private final List<RuntimeException> unexpected = new ArrayList<>();
    /** Runs inside the next refresh, on the drainer's thread (a commit arriving meanwhile, say). */
    private volatile Runnable duringRefresh = () -> { };
    private DataSource dataSource;
    private Engine engine;

    @BeforeEach
    void engine() throws Exception {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL(LiquibaseSchema.freshH2("engine-drainers"));
        h2.setUser("sa");
        dataSource = h2;
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            statement.executeUpdate("DELETE FROM projection_pending");
        }
        Properties deployment = new Properties();
        deployment.setProperty(Settings.WORKERS, "1");
        Executor threads = task -> {
            if (refuseThreads.get()) {
                throw new RejectedExecutionException("the pool stopped");
            }
            queued.add(task);
        };
        Settings settings = Settings.load(deployment);
        engine = Engine.builder()
                .dataSource(dataSource)
                .settings(settings)
                // the test runs its drainers on its own thread: one that stays for the next commit holds the test
                .handoff(Handoff.of(settings, Duration.ofMillis(50)))
                .projections(catalog())
                .container(PlainContainer.on(dataSource, threads).runAs(work -> {
                    if (refuseDoor.get()) {
                        throw new IllegalStateException("the container refused the call: the deployment stops");
                    }
                    work.run();
                }))
                .instanceId("test-instance")
                .troubles(new Sweep.Troubles() {
                    @Override
                    public void record(DatabaseTroubleException e) {
                        troubles.incrementAndGet();
                    }

                    @Override
                    public void report() {
                    }
                })
                .unexpected(unexpected::add)
                .build();
    }

    @Test
    void aCommitsKeysStartOneDrainerThatRefreshesThemAndGivesItsSlotBack() throws Exception {
        MarkKey key = mark("1");

        engine.drainers().committed(Set.of(key));

        assertThat(queued).as("one drainer started").hasSize(1);
        assertThat(engine.handoff().inFlight()).as("its slot reserved before it runs").isEqualTo(1);
        runQueued();
        assertThat(refreshed).containsExactly("1");
        assertThat(pending()).isZero();
        assertThat(engine.handoff().inFlight()).as("the slot given back").isZero();
        assertThat(engine.stats().drainersStarted(DrainerOrigin.HANDOFF)).isEqualTo(1);
    }

    @Test
    void keysCommittedWhileTheOnlyDrainerRunsStartNoSecondDrainerAndAreRefreshedAllTheSame() throws Exception {
        MarkKey first = mark("1");
        MarkKey second = mark("2");
        List<Integer> startedMeanwhile = new ArrayList<>();
        duringRefresh = () -> {
            duringRefresh = () -> { };
            engine.drainers().committed(Set.of(second));
            startedMeanwhile.add(queued.size());
        };

        engine.drainers().committed(Set.of(first));
        runQueued(); // the drainer, and a successor if it passed its slot on

        assertThat(startedMeanwhile).as("the one slot was taken: the commit started no drainer").containsExactly(0);
        assertThat(refreshed).containsExactlyInAnyOrder("1", "2");
        assertThat(engine.handoff().inFlight()).isZero();
        assertThat(engine.handoff().peakInFlight()).as("never more drainers than workers").isEqualTo(1);
    }

    @Test
    void aDrainerTheThreadsRefuseGivesItsSlotBackForTheSweepToStartAnother() throws Exception {
        mark("1");
        refuseThreads.set(true);

        assertThat(engine.drainers().startIfSlotFree(DrainerOrigin.SWEEP)).as("a slot was free").isTrue();

        assertThat(engine.handoff().inFlight()).as("the slot given back at once").isZero();
        refuseThreads.set(false);
        assertThat(engine.drainers().startIfSlotFree(DrainerOrigin.SWEEP)).isTrue();
        runQueued();
        assertThat(refreshed).containsExactly("1");
    }

    @Test
    void aDrainerTheContainerRefusesOnItsThreadGivesItsSlotBack() throws Exception {
        mark("1");
        refuseDoor.set(true);

        engine.drainers().startIfSlotFree(DrainerOrigin.SWEEP);
        runQueued();

        assertThat(engine.handoff().inFlight()).isZero();
        assertThat(refreshed).isEmpty();
        assertThat(pending()).as("the mark waits for the next drainer").isEqualTo(1);
    }

    @Test
    void aDrainerThatMeetsDatabaseTroubleCountsItForTheSweepAndGivesItsSlotBack() throws Exception {
        mark("1");
        engine.drainers().startIfSlotFree(DrainerOrigin.SWEEP);
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("ALTER TABLE projection_pending RENAME TO projection_pending_away");
        }
        try {
            runQueued();
        } finally {
            try (Connection connection = dataSource.getConnection();
                 Statement statement = connection.createStatement()) {
                statement.execute("ALTER TABLE projection_pending_away RENAME TO projection_pending");
            }
        }

        assertThat(troubles).hasValue(1);
        assertThat(unexpected).isEmpty();
        assertThat(engine.handoff().inFlight()).isZero();
    }

    @Test
    void theProbesOfSuspendedProjectionsNeverRunTwiceAtOnce() {
        engine.drainers().startProbes();
        engine.drainers().startProbes();

        assertThat(queued).as("the second waits for the first to end").hasSize(1);
        runQueued();
        engine.drainers().startProbes();
        assertThat(queued).as("after it ended, the next sweep's probes start").hasSize(1);
    }

    @Test
    void theAssemblysSweepRunsItsStepsInTheDocumentedOrder() {
        assertThat(engine.sweep().stepNames()).containsExactly("reclaim lost slots", "heartbeat", "finish rebuilds",
                "probe suspended projections", "start a drainer", "report the node", "count processing nodes",
                "sample trends", "sample for drift", "prune history");
    }

    /** A probe that lifts a suspension starts a drainer for the projection's backlog (engine review, minor). */
    @Test
    void aProbeThatLiftsASuspensionStartsADrainerForTheBacklog() throws Exception {
        mark("1");
        mark("2");
        mark("3");
        try (Connection connection = dataSource.getConnection()) {
            engine.store().control().suspend(connection, "orders", "the backend was down", "operator",
                    java.time.Instant.now());
        }

        engine.drainers().startProbes();
        runQueued(); // the probe, and whatever it starts

        assertThat(refreshed).as("the probe's mark and the backlog after it").containsExactlyInAnyOrder("1", "2", "3");
        assertThat(pending()).isZero();
        assertThat(engine.handoff().inFlight()).isZero();
    }

    private void runQueued() {
        Runnable task;
        while ((task = queued.poll()) != null) {
            task.run();
        }
    }

    private MarkKey mark(String id) throws Exception {
        return Marks.mark(engine, "orders", id);
    }

    private long pending() throws Exception {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery("SELECT COUNT(*) FROM projection_pending")) {
            rows.next();
            return rows.getLong(1);
        }
    }

    private ProjectionCatalog catalog() {
        Projection orders = new Projection() {
            @Override
            public String name() {
                return "orders";
            }

            @Override
            public void refresh(String id) {
                duringRefresh.run();
                refreshed.add(id);
            }
        };
        return ProjectionCatalog.of(orders);
    }
}
