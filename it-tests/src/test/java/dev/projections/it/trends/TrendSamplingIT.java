package dev.projections.it.trends;

import dev.projections.engine.Foundation;
import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.MarkKey;
import dev.projections.ee.EngineRuntime;
import dev.projections.inspect.LagSummary;
import dev.projections.it.support.Deployments;
import dev.projections.it.support.GatedProjection;
import dev.projections.it.support.IdentityProbe;
import dev.projections.it.support.RecordingTenantScope;
import dev.projections.it.support.Rows;
import dev.projections.store.ClaimedMark;
import dev.projections.trend.LagHistograms;
import jakarta.annotation.Resource;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What the console's trends and instances page read, recorded by the engine in the server (docs/contract.md §12): a
 * claim names its holder, the first sweep after a minute writes that minute's refreshes with the backlog, and the
 * heartbeat reports the instance. The engine is driven step by step (auto-refresh off) and its clock moved by hand.
 */
@ExtendWith(ArquillianExtension.class)
class TrendSamplingIT {

    @Deployment
    static EnterpriseArchive deployment() {
        return Deployments.ear(Map.of("projection.auto-refresh", "false"),
                List.of(GatedProjection.class, RecordingTenantScope.class, IdentityProbe.class), TrendSamplingIT.class);
    }

    @Resource(lookup = "java:jboss/datasources/ProjectionDS")
    DataSource dataSource;

    @Inject
    Foundation foundation;

    @Inject
    EngineRuntime runtime;

    @Inject
    GatedProjection gated;

    @BeforeEach
    void emptyTables() throws Exception {
        GatedProjection.createTables(dataSource);
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            statement.executeUpdate("DELETE FROM projection_trend");
            statement.executeUpdate("DELETE FROM projection_node");
            statement.executeUpdate("DELETE FROM projection_pending WHERE projection = 'gated'");
        }
    }

    @AfterEach
    void reset() {
        foundation.clock().reset();
        gated.reset();
    }

    @Test
    void aClaimNamesThisInstanceAsItsHolder() throws Exception {
        MarkKey key = new MarkKey(GatedProjection.NAME, "", "holder-" + UUID.randomUUID());
        try (Connection connection = dataSource.getConnection()) {
            foundation.store().queue().upsert(connection, List.of(key), 0, foundation.clock().instant());
        }
        List<ClaimedMark> claimed = runtime.assembled().refresh().steps().claim(List.of(key));
        Rows rows = new Rows(dataSource);
        assertThat(rows.one("SELECT claimed_by FROM projection_pending WHERE entity_id = ?", key.entityId()))
                .containsExactly(foundation.instanceId());

        runtime.assembled().refresh().steps().refresh(claimed);
        assertThat(rows.exists("SELECT 1 FROM projection_pending WHERE entity_id = ?", key.entityId())).isFalse();
    }

    @Test
    void theFirstSampleAfterAMinuteWritesItsRefreshesFailuresAndP99WithTheBacklogCountedThen() throws Exception {
        String prefix = "trend-" + UUID.randomUUID() + "-";
        List<MarkKey> keys = List.of(key(prefix + 1), key(prefix + 2), key(prefix + 3));
        try (Connection connection = dataSource.getConnection()) {
            foundation.store().queue().upsert(connection, keys, 0, foundation.clock().instant());
        }
        // a minute of its own, begun just now: the refreshes below all fall into it
        Instant marked = foundation.clock().instant();
        foundation.clock().advance(Duration.between(foundation.clock().instant(),
                foundation.clock().instant().truncatedTo(ChronoUnit.MINUTES).plus(Duration.ofMinutes(1))));
        Instant minute = foundation.clock().instant().truncatedTo(ChronoUnit.MINUTES);
        gated.failNext(prefix + 2, 1);
        for (MarkKey key : keys) {
            runtime.assembled().refresh().steps().refresh(runtime.assembled().refresh().steps().claim(List.of(key)));
        }
        runtime.assembled().trends().sample(); // what ended before this minute

        foundation.clock().advance(Duration.ofMinutes(1));
        assertThat(runtime.assembled().trends().sample()).as("a row per deployed projection").isGreaterThanOrEqualTo(3);
        assertThat(runtime.assembled().trends().sample()).as("once per minute").isZero();

        Rows rows = new Rows(dataSource);
        List<Object> row = rows.one("SELECT refreshes, failures, pending, failing, p99_micros, instance_id, lag_histogram"
                + " FROM projection_trend WHERE projection = 'gated' AND sampled_minute = ?",
                foundation.store().dialect().timestamp(minute));
        assertThat(((Number) row.get(0)).longValue()).as("refreshes").isEqualTo(2);
        assertThat(((Number) row.get(1)).longValue()).as("failures").isEqualTo(1);
        assertThat(((Number) row.get(2)).longValue()).as("pending: the failed one").isEqualTo(1);
        assertThat(((Number) row.get(3)).longValue()).as("failing").isEqualTo(1);
        assertThat(((Number) row.get(4)).longValue()).as("p99").isPositive();
        assertThat(row.get(5)).isEqualTo(foundation.instanceId());
        LagSummary lag = LagHistograms.summarize(List.of((String) row.get(6)));
        assertThat(lag.refreshes()).as("the two refreshed, each lagging from its mark to the next minute").isEqualTo(2);
        assertThat(lag.p50Micros()).isGreaterThanOrEqualTo(Duration.between(marked, minute).toNanos() / 1_000);
    }

    @Test
    void theHeartbeatReportsThisInstanceWithItsWorkersAndClock() throws Exception {
        runtime.assembled().heartbeat().beat();
        runtime.assembled().heartbeat().report();
        Rows rows = new Rows(dataSource);
        List<Object> row = rows.one("SELECT workers, drainers_busy, claims_held, clock_skew_millis FROM projection_node"
                + " WHERE instance_id = ?", foundation.instanceId());
        assertThat(((Number) row.get(0)).intValue()).isEqualTo(foundation.settings().workers());
        assertThat(((Number) row.get(1)).intValue()).as("no drainer runs: auto-refresh is off").isZero();
        assertThat(((Number) row.get(2)).intValue()).isZero();
        assertThat(Math.abs(((Number) row.get(3)).longValue())).as("same machine, same clock").isLessThan(5_000);
    }

    private static MarkKey key(String id) {
        return new MarkKey(GatedProjection.NAME, "", id);
    }
}
