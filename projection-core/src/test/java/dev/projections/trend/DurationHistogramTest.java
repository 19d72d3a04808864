package dev.projections.trend;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class DurationHistogramTest {

    @Test
    void theP99IsTheBoundOfItsBucketAtMostNinePercentAboveTheExactValueNeverBelow() {
        DurationHistogram histogram = new DurationHistogram();
        for (int i = 0; i < 1_000; i++) {
            histogram.record(Duration.ofMillis(2));
        }
        for (int i = 0; i < 10; i++) {
            histogram.record(Duration.ofMillis(50));
        }
        // rank 1,000 of 1,010 is the last 2 ms refresh; the slow ten are the 1 % above it
        assertThat(histogram.p99Micros()).isEqualTo(2_048L);
    }

    @Test
    void aFewSlowRefreshesAmongAHundredAreTheP99() {
        DurationHistogram histogram = new DurationHistogram();
        for (int i = 0; i < 98; i++) {
            histogram.record(Duration.ofMillis(1));
        }
        histogram.record(Duration.ofMillis(700));
        histogram.record(Duration.ofMillis(700));
        assertThat(histogram.p99Micros()).as("never more than the longest seen").isEqualTo(700_000L);
    }

    @Test
    void everyDurationLiesInABucketWhoseBoundIsWithinAnEighthOfADoubling() {
        for (long micros = 1; micros < 5_000_000; micros = micros * 3 / 2 + 1) {
            long bound = DurationHistogram.upperBound(DurationHistogram.bucket(micros));
            assertThat(bound).as("bound of " + micros).isGreaterThanOrEqualTo(micros)
                    .isLessThanOrEqualTo((long) Math.ceil(micros * Math.pow(2, 1.0 / 8)));
        }
    }

    @Test
    void nothingRecordedHasNoP99() {
        assertThat(new DurationHistogram().p99Micros()).isNull();
    }
}
