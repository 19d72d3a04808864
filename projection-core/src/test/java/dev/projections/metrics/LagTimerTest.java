package dev.projections.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.MarkKey;
import io.micrometer.core.instrument.distribution.CountAtBucket;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class LagTimerTest {

    private static final Instant T0 = Instant.parse("2030-01-01T10:00:00Z");

    @Test
    void eachRefreshRecordsItsLagPerProjectionWithABucketEndingAtTheObjective() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        LagTimer lag = new LagTimer(registry, Map.of("orders", Duration.ofSeconds(2))::get);

        lag.refreshed(new MarkKey("orders", "", "1"), T0, T0.plusMillis(1500));
        lag.refreshed(new MarkKey("orders", "", "2"), T0, T0.plusSeconds(3));
        lag.refreshed(new MarkKey("stats", "", "1"), T0, T0.plusMillis(40));

        var orders = registry.get("projection.lag").tag("projection", "orders").timer();
        assertThat(orders.count()).isEqualTo(2);
        assertThat(orders.max(TimeUnit.MILLISECONDS)).isEqualTo(3000);
        CountAtBucket atObjective = Arrays.stream(orders.takeSnapshot().histogramCounts())
                .filter(bucket -> bucket.bucket(TimeUnit.SECONDS) == 2.0).findFirst().orElseThrow();
        assertThat(atObjective.count()).as("refreshes within the objective").isEqualTo(1);
        var stats = registry.get("projection.lag").tag("projection", "stats").timer();
        assertThat(stats.count()).isEqualTo(1);
        assertThat(Arrays.stream(stats.takeSnapshot().histogramCounts()).anyMatch(b -> b.bucket(TimeUnit.SECONDS) == 2.0))
                .as("no objective, no bucket at it").isFalse();
    }

    @Test
    void aFirstMarkAheadOfTheCommitByAnotherInstancesClockCountsAsNoLag() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        LagTimer lag = new LagTimer(registry, name -> null);

        lag.refreshed(new MarkKey("orders", "", "1"), T0.plusSeconds(1), T0);

        assertThat(registry.get("projection.lag").timer().totalTime(TimeUnit.MILLISECONDS)).isZero();
    }

    @Test
    void eachObjectiveIsAGaugeOfItsProjectionAndEveryLagTimerExistsFromTheStart() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        new LagTimer(registry, Map.of("orders", Duration.ofMillis(2500))::get)
                .register(java.util.List.of("orders", "stats"));
        assertThat(registry.get("projection.freshness.objective").tag("projection", "orders").gauge().value())
                .isEqualTo(2.5);
        assertThat(registry.find("projection.freshness.objective").tag("projection", "stats").gauge())
                .as("no objective, no gauge").isNull();
        assertThat(registry.get("projection.lag").tag("projection", "stats").timer().count())
                .as("every projection's lag series exists from the start").isZero();
    }
}
