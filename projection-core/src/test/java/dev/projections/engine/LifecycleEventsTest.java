package dev.projections.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.MarkKey;
import dev.projections.NonRetryableRefreshException;
import dev.projections.Projection;
import dev.projections.RebuildProgress;
import dev.projections.config.Settings;
import dev.projections.lifecycle.LifecycleEvent;
import dev.projections.lifecycle.MarkParked;
import dev.projections.lifecycle.RebuildEnded;
import dev.projections.refresh.AdjustableClock;
import dev.projections.refresh.ProjectionCatalog;
import dev.projections.store.LiquibaseSchema;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Lifecycle events told by an assembled engine on H2 (docs/contract.md §6, §7): each once the change it tells of
 * committed — the listener reads the tables on a connection of its own and finds it there — and a listener that
 * throws is counted and changes nothing.
 */
class LifecycleEventsTest {

    private final ExecutorService threads = Executors.newCachedThreadPool();
    private final BlockingQueue<LifecycleEvent> told = new LinkedBlockingQueue<>();
    /** What the listener read of the change when told: committed, or not yet. */
    private final BlockingQueue<String> seenInTables = new LinkedBlockingQueue<>();
    private final AdjustableClock clock = new AdjustableClock();
    private volatile boolean listenerThrows;
    /** While set, the listener waits on it: an observer that blocks. */
    private volatile CountDownLatch observerHeld;
    private JdbcDataSource dataSource;
    private Engine engine;

    @BeforeEach
    void start() throws Exception {
        dataSource = new JdbcDataSource();
        dataSource.setURL(LiquibaseSchema.freshH2("lifecycle_events"));
        dataSource.setUser("sa");
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            statement.executeUpdate("DELETE FROM projection_pending");
            statement.executeUpdate("DELETE FROM projection_rebuild_partition");
            statement.executeUpdate("DELETE FROM projection_rebuild");
        }
        engine = Engine.builder().dataSource(dataSource).container(PlainContainer.on(dataSource, threads).clock(clock))
                .settings(Settings.defaults())
                .projections(ProjectionCatalog.of(broken("orders"), empty("customers")))
                .instanceId("lifecycle-test")
                .observers(Observers.NONE.lifecycle(event -> {
                    CountDownLatch held = observerHeld;
                    if (held != null) {
                        awaitQuietly(held);
                    }
                    seenInTables.add(committed(event));
                    told.add(event);
                    if (listenerThrows) {
                        throw new IllegalStateException("an observer that fails");
                    }
                }))
                .build();
    }

    @AfterEach
    void stop() throws Exception {
        engine.stop();
        threads.shutdownNow();
        assertThat(threads.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void aParkedMarkIsToldOnceItsParkCommittedAndAListenerThatThrowsChangesNothing() throws Exception {
        listenerThrows = true;
        MarkKey one = Marks.mark(engine, "orders", "1");
        engine.drainers().committed(Set.of(one));

        LifecycleEvent first = told.poll(10, TimeUnit.SECONDS);
        assertThat(first).usingRecursiveComparison().ignoringFields("at").isEqualTo(new MarkParked("orders", "", "1", 1,
                "dev.projections.NonRetryableRefreshException: orders cannot be refreshed", null));
        assertThat(seenInTables.poll()).isEqualTo("committed");
        MarkKey two = Marks.mark(engine, "orders", "2");
        engine.drainers().committed(Set.of(two));
        assertThat(told.poll(10, TimeUnit.SECONDS)).as("the engine went on").isInstanceOf(MarkParked.class);
        // the listener throws after it recorded the event: the count follows the throw
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (engine.stats().listenerFailures("orders") < 2 && System.nanoTime() < until) {
            Thread.onSpinWait();
        }
        assertThat(engine.stats().listenerFailures("orders")).isEqualTo(2);
    }

    @Test
    void aRebuildRunThatFailsAndOneThatFinishesAreToldOnceTheirEndCommitted() throws Exception {
        String failing = startRun("orders");
        assertThat(engine.rebuilds().step()).isTrue();
        RebuildEnded failed = (RebuildEnded) told.poll(10, TimeUnit.SECONDS);
        assertThat(failed.run().runId()).isEqualTo(failing);
        assertThat(failed.state()).isEqualTo(RebuildProgress.FAILED);
        assertThat(failed.run().lastError()).contains("the ids cannot be listed");
        assertThat(seenInTables.poll()).isEqualTo("committed");

        String finishing = startRun("customers");
        assertThat(engine.rebuilds().step()).isTrue(); // no id: its only partition is exhausted
        engine.rebuilds().finishExhausted();
        RebuildEnded finished = (RebuildEnded) told.poll(10, TimeUnit.SECONDS);
        assertThat(finished.run().runId()).isEqualTo(finishing);
        assertThat(finished.state()).isEqualTo(RebuildProgress.FINISHED);
        assertThat(finished.run().marked()).isZero();
        assertThat(seenInTables.poll()).isEqualTo("committed");
        engine.rebuilds().finishExhausted();
        assertThat(told.poll(200, TimeUnit.MILLISECONDS)).as("told once").isNull();
    }

    @Test
    void anObserverThatBlocksHoldsNeitherTheSweepNorADrainerAndIsToldEveryEventInOrderOnceItGoesOn() throws Exception {
        CountDownLatch held = new CountDownLatch(1);
        observerHeld = held;
        try {
            String finishing = startRun("customers");
            assertThat(engine.rebuilds().step()).isTrue();
            // the sweep's step that ends the run tells RebuildEnded: it returns while the observer is held
            Future<?> sweepStep = threads.submit(() -> engine.rebuilds().finishExhausted());
            sweepStep.get(10, TimeUnit.SECONDS);
            // and a drainer parks marks, one after the other, while the observer still holds
            MarkKey one = Marks.mark(engine, "orders", "1");
            engine.drainers().committed(Set.of(one));
            awaitParked(1);
            MarkKey two = Marks.mark(engine, "orders", "2");
            engine.drainers().committed(Set.of(two));
            awaitParked(2);
            assertThat(told).as("nothing told while the observer holds").isEmpty();

            held.countDown();
            assertThat(((RebuildEnded) told.poll(10, TimeUnit.SECONDS)).run().runId()).isEqualTo(finishing);
            assertThat(((MarkParked) told.poll(10, TimeUnit.SECONDS)).id()).isEqualTo("1");
            assertThat(((MarkParked) told.poll(10, TimeUnit.SECONDS)).id()).isEqualTo("2");
        } finally {
            observerHeld = null;
            held.countDown();
        }
    }

    private void awaitParked(long parked) throws Exception {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < until) {
            try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement();
                 ResultSet rows = statement.executeQuery(
                         "SELECT COUNT(*) FROM projection_pending WHERE parked_at IS NOT NULL")) {
                rows.next();
                if (rows.getLong(1) == parked) {
                    return;
                }
            }
            Thread.sleep(10);
        }
        throw new AssertionError(parked + " parked marks expected within 10 s");
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private String startRun(String projection) throws Exception {
        return engine.transactions().inNewTransaction(Duration.ofSeconds(5),
                connection -> engine.store().rebuildRuns().start(connection, projection, "", clock.instant()));
    }

    /** Whether the change {@code event} tells of is committed, read on a connection of its own. */
    private String committed(LifecycleEvent event) {
        String sql = event instanceof MarkParked parked
                ? "SELECT COUNT(*) FROM projection_pending WHERE entity_id = '" + parked.id() + "' AND parked_at IS NOT NULL"
                : "SELECT COUNT(*) FROM projection_rebuild WHERE run_id = '" + ((RebuildEnded) event).run().runId()
                        + "' AND state <> 'RUNNING'";
        try (Connection connection = dataSource.getConnection(); PreparedStatement select = connection.prepareStatement(sql);
             ResultSet rows = select.executeQuery()) {
            rows.next();
            return rows.getLong(1) == 1 ? "committed" : "not yet";
        } catch (Exception e) {
            return e.toString();
        }
    }

    private static Projection broken(String name) {
        return new Projection() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public void refresh(String id) {
                throw new NonRetryableRefreshException(name + " cannot be refreshed");
            }

            @Override
            public List<String> ids(String after, int limit) {
                throw new IllegalStateException("the ids cannot be listed");
            }
        };
    }

    private static Projection empty(String name) {
        return new Projection() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public void refresh(String id) {
            }

            @Override
            public List<String> ids(String after, int limit) {
                return List.of();
            }
        };
    }
}
