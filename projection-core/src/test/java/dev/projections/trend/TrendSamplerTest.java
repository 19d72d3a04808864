package dev.projections.trend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.projections.MarkKey;
import dev.projections.Projection;
import dev.projections.RefreshOutcome;
import dev.projections.inspect.PendingCounts;
import dev.projections.refresh.DatabaseTroubleException;
import dev.projections.refresh.ProjectionCatalog;
import dev.projections.refresh.JdbcTransactions;
import dev.projections.refresh.Transactions;
import dev.projections.store.Dialect;
import dev.projections.store.LiquibaseSchema;
import dev.projections.store.Tables;
import dev.projections.store.TrendPoint;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The sweep's trend task on H2: once per minute, what a failed write keeps, minutes no sweep followed, the flush. */
class TrendSamplerTest {

    private static final Instant T0 = Instant.parse("2030-01-01T10:00:00Z");
    private static final MarkKey ORDER = new MarkKey("order-search", "", "1");
    private static String url;

    private final Tables store = Tables.forProduct("H2");
    private final SetClock clock = new SetClock();
    private final AtomicInteger failures = new AtomicInteger();
    private final RefreshMinutes minutes = new RefreshMinutes(clock);
    private TrendSampler sampler;
    private final RefreshMinutes otherMinutes = new RefreshMinutes(clock);
    private TrendSampler otherInstance;

    @BeforeAll
    static void createSchema() throws Exception {
        url = LiquibaseSchema.freshH2("trend-sampler");
    }

    @BeforeEach
    void emptyTables() throws Exception {
        try (Connection connection = DriverManager.getConnection(url, "sa", "");
             Statement statement = connection.createStatement()) {
            statement.executeUpdate("DELETE FROM projection_trend");
            statement.executeUpdate("DELETE FROM projection_pending");
        }
        org.h2.jdbcx.JdbcDataSource dataSource = new org.h2.jdbcx.JdbcDataSource();
        dataSource.setURL(url);
        dataSource.setUser("sa");
        JdbcTransactions jdbc = new JdbcTransactions(dataSource);
        Transactions transactions = new Transactions() {
            @Override
            public <T> T inNewTransaction(Duration timeout, Work<T> work) throws Exception {
                if (failures.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                    throw new java.sql.SQLException("the database is away");
                }
                return jdbc.inNewTransaction(timeout, work);
            }
        };
        ProjectionCatalog catalog = new ProjectionCatalog() {
            @Override
            public Projection byName(String name) {
                return null;
            }

            @Override
            public Set<String> names() {
                return Set.of("order-search");
            }

            @Override
            public Set<String> claimable() {
                return names();
            }
        };
        sampler = new TrendSampler(store.trends(), store.nodes(), new PendingCounts(Dialect.H2), minutes, transactions,
                clock, catalog, "node-a", Duration.ofHours(48));
        otherInstance = new TrendSampler(store.trends(), store.nodes(), new PendingCounts(Dialect.H2), otherMinutes,
                transactions, clock, catalog, "node-b", Duration.ofHours(48));
        clock.set(T0.plusSeconds(10));
    }

    @Test
    void aMinuteIsTriedOnceAndWhatTheDatabaseRefusedGoesOutWithTheNextMinute() throws Exception {
        minutes.refreshed(ORDER, RefreshOutcome.SUCCESS, Duration.ofMillis(5));
        clock.set(T0.plusSeconds(65));
        failures.set(1);
        assertThatThrownBy(sampler::sample).isInstanceOf(DatabaseTroubleException.class);
        assertThat(sampler.sample()).as("the other sweeps of this minute leave it alone").isZero();
        minutes.refreshed(ORDER, RefreshOutcome.FAILED, Duration.ofMillis(9));

        clock.set(T0.plusSeconds(125));
        assertThat(sampler.sample()).as("10:01 with its backlog, 10:00 without").isEqualTo(2);
        assertThat(points()).extracting(TrendPoint::minute, TrendPoint::refreshes, TrendPoint::failures, TrendPoint::pending)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(T0, 1L, 0L, null),
                        org.assertj.core.groups.Tuple.tuple(T0.plusSeconds(60), 0L, 1L, 0L));
    }

    @Test
    void aSweepMoreThanAMinuteApartWritesTheMinutesBetweenWithoutABacklog() throws Exception {
        for (int minute = 0; minute < 3; minute++) {
            clock.set(T0.plusSeconds(60L * minute + 5));
            minutes.refreshed(ORDER, RefreshOutcome.SUCCESS, Duration.ofMillis(5));
        }
        clock.set(T0.plusSeconds(185));
        assertThat(sampler.sample()).isEqualTo(3);
        assertThat(points()).extracting(TrendPoint::refreshes, TrendPoint::pending)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(1L, null), org.assertj.core.groups.Tuple.tuple(1L, null),
                        org.assertj.core.groups.Tuple.tuple(1L, 0L));
    }

    @Test
    void theFlushAtShutdownWritesTheUnfinishedMinuteAndARestartedProcessAddsToIt() throws Exception {
        minutes.refreshed(ORDER, RefreshOutcome.SUCCESS, Duration.ofMillis(5));
        assertThat(sampler.flush()).isEqualTo(1);
        minutes.refreshed(ORDER, RefreshOutcome.SUCCESS, Duration.ofMillis(5));
        minutes.refreshed(ORDER, RefreshOutcome.SUCCESS, Duration.ofMillis(5));
        clock.set(T0.plusSeconds(70));
        sampler.sample();
        assertThat(points()).extracting(TrendPoint::minute, TrendPoint::refreshes)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(T0, 3L));
    }

    @Test
    void theLagOfBothInstancesAndOfAProcessRestartedWithinTheMinuteReachTheConsolesHour() throws Exception {
        Instant now = T0.plusSeconds(10);
        minutes.refreshed(ORDER, now.minusMillis(20), now);
        assertThat(sampler.flush()).isEqualTo(1);
        minutes.refreshed(ORDER, now.minusMillis(30), now); // the restarted process, same minute
        otherMinutes.refreshed(ORDER, now.minusSeconds(4), now);
        clock.set(T0.plusSeconds(70));
        sampler.sample();
        otherInstance.sample();

        try (Connection connection = DriverManager.getConnection(url, "sa", "")) {
            dev.projections.inspect.LagSummary hour = LagHistograms.summarize(
                    store.trends().lags(connection, "order-search", T0.minusSeconds(3600), T0.plusSeconds(70)));
            assertThat(hour.refreshes()).isEqualTo(3);
            assertThat(hour.p50Micros()).as("the 30 ms one").isBetween(30_000L, 32_800L);
            assertThat(hour.p99Micros()).as("the other instance's 4 s").isEqualTo(4_000_000L);
        }
    }

    @Test
    void theFirstInstanceToSampleAMinuteCountsTheSharedBacklogAndTheOthersOnlyAddTheirRefreshes() throws Exception {
        mark("1");
        minutes.refreshed(ORDER, RefreshOutcome.SUCCESS, Duration.ofMillis(5));
        otherMinutes.refreshed(ORDER, RefreshOutcome.SUCCESS, Duration.ofMillis(5));
        clock.set(T0.plusSeconds(65));
        sampler.sample();
        mark("2"); // counted by node-b, the backlog would now be 2

        otherInstance.sample();

        assertThat(backlogOf("node-a")).as("node-a counted the queue").isEqualTo(1L);
        assertThat(backlogOf("node-b")).as("node-b did not count it again").isNull();
        assertThat(points()).extracting(TrendPoint::minute, TrendPoint::refreshes, TrendPoint::pending)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(T0, 2L, 1L));
    }

    @Test
    void aMinuteNoInstanceCountedYetIsCountedByTheNext() throws Exception {
        mark("1");
        otherMinutes.refreshed(ORDER, RefreshOutcome.SUCCESS, Duration.ofMillis(5));
        clock.set(T0.plusSeconds(65));

        otherInstance.sample();

        assertThat(backlogOf("node-b")).isEqualTo(1L);
    }

    private void mark(String id) throws Exception {
        try (Connection connection = DriverManager.getConnection(url, "sa", "")) {
            store.queue().upsert(connection, List.of(new MarkKey("order-search", "", id)),
                    dev.projections.store.PendingQueue.LIVE, clock.instant());
        }
    }

    private Long backlogOf(String instance) throws Exception {
        try (Connection connection = DriverManager.getConnection(url, "sa", "");
             java.sql.PreparedStatement select = connection.prepareStatement(
                     "SELECT pending FROM projection_trend WHERE instance_id = ? AND sampled_minute = ?")) {
            select.setString(1, instance);
            select.setObject(2, java.time.OffsetDateTime.ofInstant(T0, java.time.ZoneOffset.UTC));
            try (java.sql.ResultSet rows = select.executeQuery()) {
                assertThat(rows.next()).as("a row of " + instance).isTrue();
                long pending = rows.getLong(1);
                return rows.wasNull() ? null : pending;
            }
        }
    }

    private List<TrendPoint> points() throws Exception {
        try (Connection connection = DriverManager.getConnection(url, "sa", "")) {
            return store.trends().read(connection, "order-search", T0.minusSeconds(3600), T0.plusSeconds(3600));
        }
    }
}
