package dev.projections.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.MarkKey;
import dev.projections.Projection;
import dev.projections.config.Settings;
import dev.projections.refresh.AdjustableClock;
import dev.projections.refresh.ProjectionCatalog;
import dev.projections.store.LiquibaseSchema;
import dev.projections.store.PendingQueue;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The lag told to the meter (docs/contract.md §9 {@code projection.lag}) through an assembled engine on H2: a key
 * marked, marked again later, then refreshed with the engine's clock moved on; its lag runs from the first mark.
 */
class RefreshLagTest {

    private final ExecutorService threads = Executors.newCachedThreadPool();
    private final BlockingQueue<Instant[]> lags = new LinkedBlockingQueue<>();
    private final BlockingQueue<String> refreshed = new LinkedBlockingQueue<>();
    private Engine engine;

    @AfterEach
    void stop() throws Exception {
        if (engine != null) {
            engine.stop();
        }
        threads.shutdownNow();
        assertThat(threads.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }

    private final AdjustableClock clock = new AdjustableClock();

    @Test
    void aRefreshsLagRunsFromItsKeysFirstMarkToItsCommit() throws Exception {
        start();
        Instant first = clock.instant();
        MarkKey key = Marks.mark(engine, "orders", "1");
        clock.advance(Duration.ofSeconds(3));
        Marks.mark(engine, "orders", "1");
        clock.advance(Duration.ofSeconds(4));
        engine.drainers().committed(Set.of(key));

        Instant[] lag = lags.poll(10, TimeUnit.SECONDS);
        assertThat(lag).as("the refresh's lag told").isNotNull();
        assertThat(Duration.between(first, lag[0]).abs()).as("from the first mark").isLessThan(Duration.ofSeconds(1));
        assertThat(Duration.between(lag[0], lag[1])).isGreaterThanOrEqualTo(Duration.ofSeconds(7));
        assertThat(List.copyOf(lags)).as("one refresh, one lag").isEmpty();
    }

    @Test
    void aRebuildsMarksWaitBehindLiveOnesByDesignAndAreNotCounted() throws Exception {
        start();
        MarkKey rebuilt = new MarkKey("orders", "", "r");
        engine.transactions().inNewTransaction(Duration.ofSeconds(5), connection -> {
            engine.store().queue().upsert(connection, List.of(rebuilt), PendingQueue.REBUILD, clock.instant());
            return null;
        });
        clock.advance(Duration.ofMinutes(5));
        MarkKey live = Marks.mark(engine, "orders", "live");
        engine.drainers().committed(Set.of(live));
        engine.drainers().startIfSlotFree(dev.projections.refresh.DrainerOrigin.SWEEP);

        assertThat(lags.poll(10, TimeUnit.SECONDS)).as("the live mark's lag").isNotNull();
        assertThat(refreshed.poll(10, TimeUnit.SECONDS)).isNotNull();
        assertThat(refreshed.poll(10, TimeUnit.SECONDS)).as("both refreshed").isNotNull();
        // the lag is told after the commit: once no drainer is left, everything that was told is here
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (engine.handoff().inFlight() > 0 && System.nanoTime() < until) {
            Thread.sleep(10);
        }
        assertThat(engine.handoff().inFlight()).isZero();
        assertThat(List.copyOf(lags)).as("no lag of the rebuild's mark").isEmpty();
    }

    private void start() throws Exception {
        JdbcDataSource dataSource = new JdbcDataSource();
        dataSource.setURL(LiquibaseSchema.freshH2("refresh_lag"));
        dataSource.setUser("sa");
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            statement.executeUpdate("DELETE FROM projection_pending");
        }
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
                }))
                .instanceId("lag-test").withoutRebuildSteps()
                .observers(Observers.NONE.lag((key, firstMarkedAt, committedAt) ->
                        lags.add(new Instant[] {firstMarkedAt, committedAt})))
                .build();
    }
}
