package dev.projections.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.MarkKey;
import dev.projections.Projection;
import dev.projections.config.Settings;
import dev.projections.refresh.AdjustableClock;
import dev.projections.refresh.ProjectionCatalog;
import dev.projections.spi.RefreshTracing;
import dev.projections.store.LiquibaseSchema;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Refreshes traced (docs/contract.md §9, tracing) through an assembled engine on H2 with a recording tracer: a
 * refresh's span gets the trace contexts of the transactions that marked its keys, and ends with how it ended.
 */
class RefreshTracingTest {

    private static final String POST_A = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    private static final String POST_B = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

    private record Started(String projection, String tenant, int keys, List<String> traceparents) {
    }

    private record Ended(String outcome, Throwable failure) {
    }

    private final ExecutorService threads = Executors.newCachedThreadPool();
    private final BlockingQueue<Started> started = new LinkedBlockingQueue<>();
    private final BlockingQueue<Ended> ended = new LinkedBlockingQueue<>();
    private final BlockingQueue<String> refreshed = new LinkedBlockingQueue<>();
    private final AtomicInteger failNext = new AtomicInteger();
    private volatile boolean tracerThrows;
    private JdbcDataSource dataSource;
    private final AdjustableClock clock = new AdjustableClock();
    private Engine engine;

    @AfterEach
    void stop() throws Exception {
        if (engine != null) {
            engine.stop();
        }
        threads.shutdownNow();
        assertThat(threads.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void aRefreshSpanIsLinkedToEveryTransactionThatMarkedItsKeysAndAReMarkWithoutATraceKeepsTheOne() throws Exception {
        start(true);
        MarkKey one = Marks.mark(engine, "orders", "1", POST_A);
        Marks.mark(engine, "orders", "1", null); // a change without a trace: the row keeps A's
        MarkKey two = Marks.mark(engine, "orders", "2", POST_B);
        MarkKey three = Marks.mark(engine, "orders", "3", POST_B);
        MarkKey four = Marks.mark(engine, "orders", "4", null);
        engine.drainers().committed(Set.of(one, two, three, four));

        Started span = started.poll(10, TimeUnit.SECONDS);
        assertThat(span).isNotNull();
        assertThat(span.projection()).isEqualTo("orders");
        assertThat(span.tenant()).isEmpty();
        assertThat(span.keys()).isEqualTo(4);
        assertThat(span.traceparents()).as("distinct, the untraced ones none").containsExactlyInAnyOrder(POST_A, POST_B);
        Ended end = ended.poll(10, TimeUnit.SECONDS);
        assertThat(end).isEqualTo(new Ended("refreshed", null));
    }

    @Test
    void aFailedRefreshAllEndsItsSpanFailedAndEachKeyAloneGetsASpanOfItsOwn() throws Exception {
        start(true);
        failNext.set(1);
        MarkKey one = Marks.mark(engine, "orders", "1", POST_A);
        MarkKey two = Marks.mark(engine, "orders", "2", POST_B);
        engine.drainers().committed(Set.of(one, two));

        assertThat(started.poll(10, TimeUnit.SECONDS).keys()).isEqualTo(2);
        Ended batch = ended.poll(10, TimeUnit.SECONDS);
        assertThat(batch.outcome()).isEqualTo("failed");
        assertThat(batch.failure()).hasMessageContaining("read model locked");
        List<List<String>> alone = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            Started single = started.poll(10, TimeUnit.SECONDS);
            assertThat(single.keys()).isEqualTo(1);
            alone.add(single.traceparents());
            assertThat(ended.poll(10, TimeUnit.SECONDS)).isEqualTo(new Ended("refreshed", null));
        }
        assertThat(alone).containsExactlyInAnyOrder(List.of(POST_A), List.of(POST_B));
    }

    @Test
    void withTracingOffNoSpanIsStartedAndRefreshesGoOnAsBefore() throws Exception {
        start(false);
        MarkKey one = Marks.mark(engine, "orders", "1", null);
        engine.drainers().committed(Set.of(one));
        assertThat(refreshed.poll(10, TimeUnit.SECONDS)).isEqualTo("1");
        assertThat(started).isEmpty();
    }

    @Test
    void aTracerThatThrowsOrATraceReadThatFailsLeavesTheRefreshUntracedNeverFailed() throws Exception {
        start(true);
        tracerThrows = true;
        MarkKey one = Marks.mark(engine, "orders", "1", POST_A);
        engine.drainers().committed(Set.of(one));
        assertThat(refreshed.poll(10, TimeUnit.SECONDS)).isEqualTo("1");
        // its ack commits after the refresh ran: the column is dropped only once it did, not under it
        assertThat(marksLeft()).as("the first acked: no failure recorded").isZero();

        tracerThrows = false;
        MarkKey two = Marks.mark(engine, "orders", "2", POST_B);
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            // the read of the trace contexts fails from now on
            statement.execute("ALTER TABLE projection_pending DROP COLUMN traceparent");
        }
        engine.drainers().committed(Set.of(two));
        assertThat(refreshed.poll(10, TimeUnit.SECONDS)).isEqualTo("2");
        assertThat(started).as("no span: neither could start").isEmpty();
        assertThat(marksLeft()).as("both acked: no failure recorded").isZero();
    }

    /** The marks left, once the acks under way committed (at most 10 s). */
    private long marksLeft() throws Exception {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        long left;
        do {
            try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement();
                 java.sql.ResultSet rows = statement.executeQuery("SELECT COUNT(*) FROM projection_pending")) {
                rows.next();
                left = rows.getLong(1);
            }
        } while (left > 0 && System.nanoTime() < until && sleep());
        return left;
    }

    private static boolean sleep() throws InterruptedException {
        Thread.sleep(20);
        return true;
    }

    private void start(boolean enabled) throws Exception {
        dataSource = new JdbcDataSource();
        dataSource.setURL(LiquibaseSchema.freshH2("refresh_tracing"));
        dataSource.setUser("sa");
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            statement.executeUpdate("DELETE FROM projection_pending");
        }
        RefreshTracing recording = new RefreshTracing() {
            @Override
            public boolean enabled() {
                return enabled;
            }

            @Override
            public String currentTraceparent() {
                return null;
            }

            @Override
            public Span start(String projection, String tenant, int keys, List<String> traceparents) {
                if (tracerThrows) {
                    throw new IllegalStateException("the tracer is broken");
                }
                started.add(new Started(projection, tenant, keys, traceparents));
                return (outcome, failure) -> ended.add(new Ended(outcome, failure));
            }
        };
        engine = Engine.builder().dataSource(dataSource).container(PlainContainer.on(dataSource, threads).clock(clock))
                .settings(Settings.defaults())
                .projections(ProjectionCatalog.of(new Projection() {
                    @Override
                    public String name() {
                        return "orders";
                    }

                    @Override
                    public void refresh(String id) {
                        refreshed.add(id);
                    }

                    @Override
                    public void refreshAll(List<String> ids) {
                        if (failNext.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                            throw new IllegalStateException("read model locked");
                        }
                        ids.forEach(this::refresh);
                    }
                }))
                .instanceId("tracing-test").withoutRebuildSteps().observers(Observers.NONE.tracing(recording)).build();
    }
}
