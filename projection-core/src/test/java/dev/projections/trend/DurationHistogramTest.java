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

    @Test
    void theMedianAndThe99thPercentileComeFromOneHistogram() {
        DurationHistogram histogram = new DurationHistogram();
        for (int i = 1; i <= 100; i++) {
            histogram.record(Duration.ofMillis(i));
        }
        // rank 50 is 50 ms, rank 99 is 99 ms: each reported as its bucket's bound, at most 9 % above
        assertThat(histogram.percentileMicros(0.5)).isBetween(50_000L, 54_530L);
        assertThat(histogram.percentileMicros(0.99)).isBetween(99_000L, 100_000L);
    }

    @Test
    void itsTextReadBackIsTheSameHistogramAndTwoTextsJoinedBySpaceAddUp() {
        DurationHistogram first = new DurationHistogram();
        for (int i = 0; i < 98; i++) {
            first.record(Duration.ofMillis(3));
        }
        DurationHistogram second = new DurationHistogram();
        second.record(Duration.ofMillis(700));
        second.record(Duration.ofMillis(900));

        DurationHistogram read = new DurationHistogram();
        read.addText(first.text());
        assertThat(read.count()).isEqualTo(98);
        assertThat(read.text()).isEqualTo(first.text());

        DurationHistogram joined = new DurationHistogram();
        joined.addText(first.text() + " " + second.text());
        first.add(second);
        assertThat(joined.count()).isEqualTo(100);
        assertThat(joined.text()).isEqualTo(first.text());
        assertThat(joined.p99Micros()).as("rank 99 of 100 is the 700 ms one, at its bucket's bound")
                .isEqualTo(first.p99Micros()).isBetween(700_000L, 763_500L);
        assertThat(joined.percentileMicros(1.0)).as("never more than the longest of both").isEqualTo(900_000L);
    }

    @Test
    void aTextHoldsEveryBucketWithTheLargestCountsInUnder7300Characters() {
        StringBuilder full = new StringBuilder("m:" + Long.MAX_VALUE);
        for (int bucket = 0; bucket < 36 * DurationHistogram.STEPS_PER_DOUBLING; bucket++) {
            full.append(' ').append(bucket).append(':').append(Long.MAX_VALUE / 300);
        }
        DurationHistogram histogram = new DurationHistogram();
        histogram.addText(full.toString());
        assertThat(histogram.text()).isEqualTo(full.toString()).hasSizeLessThan(7_300);
    }

    @Test
    void tokensItCannotReadAreSkippedAndNothingRecordedHasNoText() {
        DurationHistogram histogram = new DurationHistogram();
        histogram.addText("  m:5000 12:3 x:1 999:4 -1:2 7:-3 13:abc 12:1  ");
        assertThat(histogram.count()).as("12:3 and 12:1 only").isEqualTo(4);
        histogram.addText(null);
        assertThat(histogram.count()).isEqualTo(4);
        assertThat(new DurationHistogram().text()).isNull();
    }
}
