package dev.projections.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.inspect.TrendMinute;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class TrendWindowTest {

    private static final Instant NOW = Instant.parse("2030-01-01T12:00:30Z");

    @Test
    void theHourHasAMinuteABucketEndingWithTheMinuteBeforeNowAndAMinuteNobodyReportedIsAGap() {
        Instant first = Instant.parse("2030-01-01T11:00:00Z");
        TrendWindow hour = TrendWindow.of(TrendWindow.Span.HOUR, NOW, List.of(
                new TrendMinute(first, 10L, 4L, 1L, 120, 2, 3_000L, 2),
                new TrendMinute(Instant.parse("2030-01-01T11:59:00Z"), 0L, 0L, 0L, 30, 0, 1_500L, 1)));

        assertThat(TrendWindow.start(TrendWindow.Span.HOUR, NOW)).isEqualTo(first);
        assertThat(hour.due()).hasSize(60).startsWith(4.0).endsWith(0.0);
        assertThat(hour.due().get(1)).as("11:01, not reported").isNull();
        assertThat(hour.perMinute().get(0)).isEqualTo(120.0);
        assertThat(hour.p99Millis().get(59)).isEqualTo(1.5);
    }

    @Test
    void aDayBucketOfAQuarterHourShowsTheLargestBacklogTheMeanRateOfItsReportedMinutesAndTheWorstP99() {
        Instant start = TrendWindow.start(TrendWindow.Span.DAY, NOW);
        TrendWindow day = TrendWindow.of(TrendWindow.Span.DAY, NOW, List.of(
                new TrendMinute(start, 10L, 4L, 1L, 100, 0, 3_000L, 1),
                new TrendMinute(start.plusSeconds(60), 30L, 2L, 0L, 50, 0, 9_000L, 1),
                new TrendMinute(start.plusSeconds(14 * 60), null, null, null, 30, 0, null, 1)));

        assertThat(day.pending()).hasSize(96);
        assertThat(day.pending().get(0)).isEqualTo(30.0);
        assertThat(day.due().get(0)).isEqualTo(4.0);
        assertThat(day.perMinute().get(0)).isEqualTo(60.0);
        assertThat(day.p99Millis().get(0)).isEqualTo(9.0);
        assertThat(day.pending().get(1)).isNull();
    }

    @Test
    void aDaysBucketsKeepToTheQuarterHoursOfTheClockAndTheLastIsTheOneUnderWay() {
        Instant now = Instant.parse("2030-01-01T12:07:30Z");
        assertThat(TrendWindow.start(TrendWindow.Span.DAY, now)).isEqualTo(Instant.parse("2029-12-31T12:15:00Z"));
        TrendWindow day = TrendWindow.of(TrendWindow.Span.DAY, now, List.of(
                new TrendMinute(Instant.parse("2030-01-01T12:05:00Z"), 7L, 7L, 0L, 10, 0, null, 1)));
        assertThat(day.due().get(95)).as("12:00-12:15, under way").isEqualTo(7.0);
        assertThat(TrendWindow.start(TrendWindow.Span.HOUR, now)).isEqualTo(Instant.parse("2030-01-01T11:07:00Z"));
    }
}
