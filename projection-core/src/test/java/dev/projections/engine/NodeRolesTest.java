package dev.projections.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;
import static org.assertj.core.api.Assertions.tuple;

import dev.projections.EngineHealth;
import dev.projections.MarkKey;
import dev.projections.Projection;
import dev.projections.RebuildScope;
import dev.projections.config.Settings;
import dev.projections.inspect.InstanceReport;
import dev.projections.inspect.Instances;
import dev.projections.refresh.AdjustableClock;
import dev.projections.refresh.DrainerOrigin;
import dev.projections.refresh.Handoff;
import dev.projections.refresh.InstanceHeartbeat;
import dev.projections.refresh.ProjectionCatalog;
import dev.projections.refresh.WakeUpLook;
import dev.projections.store.LiquibaseSchema;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Properties;
import java.util.Queue;
import java.util.Set;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Node roles (docs/design.md D54): two engines on one database, a web node ({@code projection.processing=false}) and
 * a processing node, each with threads the test runs by hand — a queued task is a drainer or a probe the engine
 * started, so "started nothing" is an empty queue, not a wait that saw nothing happen.
 */
class NodeRolesTest {

    private static final Duration SWEEP_INTERVAL = Duration.ofSeconds(30);

    private final Queue<Runnable> webThreads = new ArrayDeque<>();
    private final Queue<Runnable> processingThreads = new ArrayDeque<>();
    private final List<String> refreshedByWeb = Collections.synchronizedList(new ArrayList<>());
    private final List<String> refreshedByProcessing = Collections.synchronizedList(new ArrayList<>());
    /* one still instant for both: what is live is decided by the test's steps, not by how long they took */
    private final Instant start = Instant.now();
    private final AdjustableClock webClock = new AdjustableClock(Clock.fixed(start, ZoneOffset.UTC));
    private final AdjustableClock processingClock = new AdjustableClock(Clock.fixed(start, ZoneOffset.UTC));
    private DataSource dataSource;
    private Engine web;
    private Engine processing;

    @BeforeEach
    void engines() throws Exception {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL(LiquibaseSchema.freshH2("node-roles"));
        h2.setUser("sa");
        dataSource = h2;
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            statement.executeUpdate("DELETE FROM projection_pending");
            statement.executeUpdate("DELETE FROM projection_node");
        }
        web = engine("web-1", false, webThreads, refreshedByWeb, webClock, "orders", "invoices");
        processing = engine("worker-1", true, processingThreads, refreshedByProcessing, processingClock, "orders");
    }

    @Test
    void aWebNodesSweepOnlyBeatsReportsAndCounts() {
        assertThat(web.sweep().stepNames()).containsExactly("heartbeat", "report the node", "count processing nodes");
        assertThat(processing.sweep().stepNames()).contains("start a drainer", "sample trends");
    }

    @Test
    void aWebNodesCommitsStartNoDrainerAndAProcessingNodeRefreshesTheirMarks() throws Exception {
        MarkKey key = Marks.mark(web, "orders", "1");

        web.drainers().committed(Set.of(key));
        assertThat(web.drainers().startIfSlotFree(DrainerOrigin.SWEEP)).as("no slot is ever reserved").isFalse();
        web.sweep().run();

        assertThat(webThreads).as("the web node started no drainer and no probe").isEmpty();
        assertThat(web.handoff().inFlight()).isZero();
        assertThat(pending()).as("the mark waits in the table").isEqualTo(1);

        processing.sweep().run();
        runAll(processingThreads);
        assertThat(refreshedByProcessing).containsExactly("1");
        assertThat(refreshedByWeb).isEmpty();
        assertThat(pending()).isZero();
    }

    @Test
    void anIdleProcessingInstanceLooksForAWebNodesCommitsBetweenSweepsOnceItCountedTheWebNode() throws Exception {
        WakeUpLook look = processing.wakeUpLook();
        assertThat(web.wakeUpLook()).as("a web node looks for nothing").isNull();
        assertThat(look.run()).as("no web node: the hand-off serves this instance's own commits").isFalse();

        web.sweep().run();
        assertThat(look.run()).as("counted less than 5 s ago, without the web node").isFalse();
        processingClock.advance(Duration.ofSeconds(5));
        assertThat(look.run()).as("counted again: the web node is live").isTrue();
        assertThat(processing.stats().processing().webNodes()).isEqualTo(1);
        assertThat(processingThreads).as("nothing due yet").isEmpty();

        MarkKey key = Marks.mark(web, "orders", "7");
        web.drainers().committed(Set.of(key));
        assertThat(look.run()).isTrue();
        assertThat(processingThreads).as("a drainer for the due mark").hasSize(1);
        runAll(processingThreads);
        assertThat(refreshedByProcessing).containsExactly("7");
        assertThat(processing.stats().drainersStarted(DrainerOrigin.WAKE_UP)).isEqualTo(1);
        assertThat(look.run()).as("nothing due: one query, no drainer").isTrue();
        assertThat(processingThreads).isEmpty();
    }

    @Test
    void anotherInstancesSignalStartsADrainerWithoutAQueryAndItsOwnSignalStartsNothing() throws Exception {
        WakeUpLook look = processing.wakeUpLook();
        look.signalled(dev.projections.refresh.WakeUpSignals.Heard.OWN);
        assertThat(processingThreads).isEmpty();

        Marks.mark(web, "orders", "9");
        look.signalled(dev.projections.refresh.WakeUpSignals.Heard.MARKS);
        assertThat(processingThreads).as("no web node counted, no look made: the signal alone").hasSize(1);
        runAll(processingThreads);
        assertThat(refreshedByProcessing).containsExactly("9");
        assertThat(processing.stats().drainersStarted(DrainerOrigin.SIGNAL)).isEqualTo(1);

        look.signalled(dev.projections.refresh.WakeUpSignals.Heard.REBUILD);
        assertThat(processingThreads).as("a rebuild signal with no run and nothing due starts nothing").isEmpty();
    }

    @Test
    void aLookThatFindsMarksDueAsksADrainerAboutToRunToLookRatherThanStartingAnother() throws Exception {
        web.sweep().run();
        Marks.mark(web, "orders", "8");
        assertThat(processing.drainers().startIfSlotFree(DrainerOrigin.SWEEP)).isTrue();
        assertThat(processingThreads).as("its one worker's drainer, not run yet").hasSize(1);

        assertThat(processing.wakeUpLook().run()).isTrue();
        assertThat(processingThreads).as("no second drainer").hasSize(1);
        assertThat(processing.stats().drainersStarted(DrainerOrigin.WAKE_UP)).isZero();
        runAll(processingThreads);
        assertThat(refreshedByProcessing).containsExactly("8");
    }

    @Test
    void aRebuildStartedOnAWebNodeIsSteppedAtAProcessingInstancesNextCountNotItsNextSweep() {
        web.sweep().run();
        WakeUpLook look = processing.wakeUpLook();
        assertThat(look.run()).as("counted: the web node is live, nothing due").isTrue();

        web.operations().rebuilds().start("orders", "", RebuildScope.everything(), 1, "carol");
        assertThat(webThreads).as("the web node steps nothing").isEmpty();
        assertThat(look.run()).as("between counts: only the due check").isTrue();
        assertThat(processingThreads).as("no mark of the run yet: nothing due").isEmpty();

        processingClock.advance(Duration.ofSeconds(5));
        assertThat(look.run()).isTrue();
        assertThat(processingThreads).as("the count's look for runs found one that can step").hasSize(1);
        runAll(processingThreads);
        assertThat(refreshedByProcessing).containsExactlyInAnyOrder("r1", "r2", "r3");
    }

    @Test
    void aRebuildSignalHasAProcessingInstanceStepARunAnotherStartedAtOnce() {
        web.operations().rebuilds().start("orders", "", RebuildScope.everything(), 1, "carol");
        assertThat(webThreads).as("the web node steps nothing").isEmpty();

        processing.wakeUpLook().signalled(dev.projections.refresh.WakeUpSignals.Heard.REBUILD);
        assertThat(processingThreads).as("no count, no look, no sweep: the signal found the run").hasSize(1);
        runAll(processingThreads);
        assertThat(refreshedByProcessing).containsExactlyInAnyOrder("r1", "r2", "r3");
        assertThat(processing.stats().drainersStarted(DrainerOrigin.SIGNAL)).isEqualTo(1);
    }

    @Test
    void aStoppedEngineLooksNoMore() throws Exception {
        web.sweep().run();
        Marks.mark(web, "orders", "9");
        processing.stop();

        assertThat(processing.wakeUpLook().run()).isFalse();
        assertThat(processingThreads).isEmpty();
    }

    @Test
    void anOperatorsActionOnAWebNodeMakesMarksDueAndLeavesTheDrainToTheProcessingNodes() throws Exception {
        Marks.mark(web, "orders", "1");

        web.operations().catchUp().refreshNow(Set.of("orders"), "tests");

        assertThat(webThreads).as("the after-commit drainer of refreshNow does not start here").isEmpty();
        processing.sweep().run();
        runAll(processingThreads);
        assertThat(refreshedByProcessing).containsExactly("1");
    }

    @Test
    void eachNodeReportsItsRoleAndAWebNodeAloneSaysNothingRefreshesItsProjectionsMarks() {
        web.sweep().run();

        assertThat(web.stats().liveProcessingNodes()).isZero();
        EngineHealth alone = web.operations().overview().health();
        assertThat(alone.processing()).isFalse();
        assertThat(alone.liveProcessingNodes()).isZero();
        assertThat(alone.problem()).isEqualTo(InstanceHeartbeat.noProcessingNode(Set.of("invoices", "orders")));
        assertThat(alone.healthy()).as("serving requests and writing marks: ready all the same").isTrue();
        assertThat(web.reads().instances().unprocessed()).containsExactly("invoices", "orders");

        processing.sweep().run();
        web.sweep().run();

        assertThat(web.stats().processing().byProjection()).containsOnly(entry("orders", 1), entry("invoices", 0));
        EngineHealth served = web.operations().overview().health();
        assertThat(served.liveProcessingNodes()).isEqualTo(1);
        assertThat(served.problem()).as("the worker does not deploy invoices")
                .isEqualTo(InstanceHeartbeat.noProcessingNode(Set.of("invoices")));
        assertThat(processing.operations().overview().health().processing()).isTrue();
        assertThat(processing.operations().overview().health().problem()).isNull();
        Instances instances = web.reads().instances();
        assertThat(instances.unprocessed()).containsExactly("invoices");
        assertThat(instances.nodes()).extracting(InstanceReport::instanceId, InstanceReport::processing,
                InstanceReport::workers).containsExactly(tuple("web-1", false, 0), tuple("worker-1", true, 1));
    }

    @Test
    void anInstanceWithoutAReportOfItsRoleIsOfAnEarlierReleaseAndProcesses() throws Exception {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            statement.executeUpdate("INSERT INTO projection_instance (instance_id, projection, last_seen) VALUES "
                    + "('old-release', 'invoices', CURRENT_TIMESTAMP)");
        }
        web.sweep().run();

        assertThat(web.stats().processing().byProjection()).containsOnly(entry("orders", 0), entry("invoices", 1));
        assertThat(web.reads().instances().unprocessed()).containsExactly("orders");
    }

    @Test
    void aProcessingNodeSilentForThreeSweepIntervalsNoLongerCounts() {
        processing.sweep().run();
        web.sweep().run();
        assertThat(web.stats().liveProcessingNodes()).isEqualTo(1);
        assertThat(web.stats().processing().byProjection()).containsEntry("orders", 1);

        webClock.advance(SWEEP_INTERVAL.multipliedBy(3).minusSeconds(1));
        web.sweep().run();
        assertThat(web.stats().liveProcessingNodes()).as("within three sweep intervals").isEqualTo(1);

        webClock.advance(Duration.ofSeconds(2));
        web.sweep().run();
        assertThat(web.stats().liveProcessingNodes()).as("silent for longer").isZero();
        assertThat(web.stats().processing().byProjection()).containsEntry("orders", 0);
        assertThat(web.operations().overview().health().problem())
                .isEqualTo(InstanceHeartbeat.noProcessingNode(Set.of("invoices", "orders")));
    }

    @Test
    void anotherInstancesSignalReadsThePausesAfreshWhereThisInstancesCopyCallsAProjectionPaused() throws Exception {
        PausesCopy pauses = new PausesCopy(catalog(refreshedByProcessing, "orders"));
        Engine worker = engine("worker-2", true, processingThreads, processingClock, pauses);
        pauses.copy = Set.of(); // read while "orders" was paused; the web node resumed it since, then committed
        Marks.mark(web, "orders", "5");

        worker.wakeUpLook().signalled(dev.projections.refresh.WakeUpSignals.Heard.MARKS);
        runAll(processingThreads);

        assertThat(refreshedByProcessing).as("not left to the next sweep").containsExactly("5");
        assertThat(pauses.reads).isEqualTo(1);

        Marks.mark(web, "orders", "6");
        worker.wakeUpLook().signalled(dev.projections.refresh.WakeUpSignals.Heard.MARKS);
        runAll(processingThreads);
        assertThat(refreshedByProcessing).containsExactly("5", "6");
        assertThat(pauses.reads).as("nothing paused in the copy: nothing read").isEqualTo(1);
    }

    /** The server's catalogue in small: a copy of the pauses, read again only when told it is stale. */
    private static final class PausesCopy implements ProjectionCatalog {
        private final ProjectionCatalog deployed;
        private Set<String> copy;
        private int reads;

        PausesCopy(ProjectionCatalog deployed) {
            this.deployed = deployed;
            this.copy = deployed.names();
        }

        @Override
        public Projection byName(String name) {
            return deployed.byName(name);
        }

        @Override
        public Set<String> names() {
            return deployed.names();
        }

        @Override
        public Set<String> claimable() {
            return copy;
        }

        @Override
        public void claimableChanged() {
            reads++;
            copy = deployed.names(); // the table says: none paused
        }
    }

    private Engine engine(String instanceId, boolean processes, Queue<Runnable> threads, List<String> refreshed,
                          AdjustableClock clock, String... projections) {
        return engine(instanceId, processes, threads, clock, catalog(refreshed, projections));
    }

    private Engine engine(String instanceId, boolean processes, Queue<Runnable> threads, AdjustableClock clock,
                          ProjectionCatalog catalog) {
        Properties deployment = new Properties();
        deployment.setProperty(Settings.WORKERS, "1");
        deployment.setProperty(Settings.SWEEP_INTERVAL, SWEEP_INTERVAL.toSeconds() + "s");
        deployment.setProperty(Settings.PROCESSING, Boolean.toString(processes));
        Settings settings = Settings.load(deployment);
        return Engine.builder()
                .dataSource(dataSource)
                .settings(settings)
                // the test runs its drainers on its own thread: one that stays for the next commit holds the test
                .handoff(Handoff.of(settings, Duration.ofMillis(50)))
                .projections(catalog)
                .container(PlainContainer.on(dataSource, threads::add).clock(clock))
                .instanceId(instanceId)
                .build();
    }

    private static void runAll(Queue<Runnable> threads) {
        Runnable task;
        while ((task = threads.poll()) != null) {
            task.run();
        }
    }

    private long pending() throws Exception {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery("SELECT COUNT(*) FROM projection_pending")) {
            rows.next();
            return rows.getLong(1);
        }
    }

    private static ProjectionCatalog catalog(List<String> refreshed, String... names) {
        Projection[] projections = new Projection[names.length];
        for (int i = 0; i < names.length; i++) {
            String name = names[i];
            projections[i] = new Projection() {
                @Override
                public String name() {
                    return name;
                }

                @Override
                public void refresh(String id) {
                    refreshed.add(id);
                }

                @Override
                public List<String> ids(String after, int limit) {
                    return Stream.of("r1", "r2", "r3").filter(id -> after == null || id.compareTo(after) > 0)
                            .limit(limit).toList();
                }
            };
        }
        return ProjectionCatalog.of(projections);
    }
}
