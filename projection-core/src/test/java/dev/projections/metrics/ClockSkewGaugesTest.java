package dev.projections.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.ClockSkew;
import dev.projections.refresh.ClockSkewRule;
import dev.projections.refresh.EngineStats;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ClockSkewGaugesTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final EngineStats stats = new EngineStats();
    private final ClockSkewRule rule = new ClockSkewRule(Duration.ofMinutes(2));

    @Test
    void theSkewGaugeReadsTheLastMeasurementInSecondsAndTheLimitGaugeHalfTheLeaseMargin() {
        new ClockSkewGauges(stats::clockSkew, rule.limit()).register(registry);

        assertThat(registry.get("projection.clock.skew.limit").gauge().value()).isEqualTo(5.0);
        assertThat(registry.get("projection.clock.skew").gauge().getId().getBaseUnit()).isEqualTo("seconds");

        stats.clockMeasured(rule.measured(Duration.ofMillis(-7_250)));
        assertThat(registry.get("projection.clock.skew").gauge().value()).isEqualTo(-7.25);
        stats.clockMeasured(rule.measured(Duration.ofMillis(12)));
        assertThat(registry.get("projection.clock.skew").gauge().value()).isEqualTo(0.012);
    }

    @Test
    void beforeTheFirstSweepMeasuredTheClockTheSkewIsNotANumberRatherThanAPerfectZero() {
        new ClockSkewGauges(() -> (ClockSkew) null, rule.limit()).register(registry);

        assertThat(registry.get("projection.clock.skew").gauge().value()).isNaN();
    }
}
