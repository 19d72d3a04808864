package dev.projections.refresh;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import org.junit.jupiter.api.Test;

class RefreshRateTest {

    private static final Instant T0 = Instant.parse("2030-01-01T10:00:00Z");

    @Test
    void countsTheRefreshesOfTheLastSixtySecondsPerProjection() {
        RefreshRate rate = new RefreshRate();
        rate.record("orders", T0);
        rate.record("orders", T0.plusMillis(500));
        rate.record("orders", T0.plusSeconds(30));
        rate.record("stats", T0.plusSeconds(30));

        assertThat(rate.lastMinute("orders", T0.plusSeconds(30))).isEqualTo(3);
        assertThat(rate.lastMinute("stats", T0.plusSeconds(30))).isEqualTo(1);
        assertThat(rate.lastMinute("orders", T0.plusSeconds(59))).isEqualTo(3);
        assertThat(rate.lastMinute("orders", T0.plusSeconds(60))).as("the first second has left the minute").isEqualTo(1);
        assertThat(rate.lastMinute("orders", T0.plusSeconds(200))).isZero();
        assertThat(rate.lastMinute("never", T0)).isZero();
    }

    @Test
    void aBucketReusedAMinuteLaterStartsFromZero() {
        RefreshRate rate = new RefreshRate();
        rate.record("orders", T0);
        rate.record("orders", T0);
        rate.record("orders", T0.plusSeconds(60));
        assertThat(rate.lastMinute("orders", T0.plusSeconds(60))).isEqualTo(1);
    }
}
