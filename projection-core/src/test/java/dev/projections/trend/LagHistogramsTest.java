package dev.projections.trend;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.inspect.LagSummary;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class LagHistogramsTest {

    @Test
    void theRowsOfEveryInstanceAndMinuteAddUpIntoOneMedianAndP99() {
        DurationHistogram fast = new DurationHistogram();
        for (int i = 0; i < 95; i++) {
            fast.record(Duration.ofMillis(10));
        }
        DurationHistogram slow = new DurationHistogram();
        for (int i = 0; i < 5; i++) {
            slow.record(Duration.ofSeconds(3));
        }
        LagSummary hour = LagHistograms.summarize(List.of(fast.text(), slow.text()));
        assertThat(hour.refreshes()).isEqualTo(100);
        assertThat(hour.p50Micros()).isBetween(10_000L, 10_910L);
        assertThat(hour.p99Micros()).as("the slow instance's five are the top 5 %").isEqualTo(3_000_000L);
        assertThat(LagHistograms.summarize(List.of())).isEqualTo(LagSummary.NONE);
    }

    @Test
    void anObjectiveIsMetWhenThe99thPercentileIsWithinItAndJudgedOnlyWithAnObjectiveAndARefresh() {
        LagSummary hour = new LagSummary(100, 8_000L, 1_900_000L);
        assertThat(hour.objectiveMet(Duration.ofSeconds(2))).isTrue();
        assertThat(hour.objectiveMet(Duration.ofMillis(1_900))).as("at the bound itself: met").isTrue();
        assertThat(hour.objectiveMet(Duration.ofSeconds(1))).isFalse();
        assertThat(hour.objectiveMet(null)).isNull();
        assertThat(LagSummary.NONE.objectiveMet(Duration.ofSeconds(2))).isNull();
    }
}
