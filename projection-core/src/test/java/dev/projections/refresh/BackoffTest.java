package dev.projections.refresh;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** docs/contract.md §4 step 5: {@code min(retry-delay · 2^min(n−1, 30), max-retry-delay)} with n the attempts so far. */
class BackoffTest {

    private final Backoff defaults = new Backoff(Duration.ofSeconds(5), Duration.ofMinutes(5));

    @Test
    void theDelayStartsAtTheRetryDelayAndDoublesWithEveryFailureUpToTheCap() {
        List<Duration> delays = IntStream.rangeClosed(1, 10).mapToObj(defaults::delayAfter).toList();

        assertThat(delays).containsExactly(
                Duration.ofSeconds(5), Duration.ofSeconds(10), Duration.ofSeconds(20), Duration.ofSeconds(40),
                Duration.ofSeconds(80), Duration.ofSeconds(160), Duration.ofMinutes(5), Duration.ofMinutes(5),
                Duration.ofMinutes(5), Duration.ofMinutes(5));
    }

    @Test
    void aDelayThatWouldPassTheCapExactlyIsCapped() {
        Backoff backoff = new Backoff(Duration.ofSeconds(3), Duration.ofSeconds(10));

        assertThat(backoff.delayAfter(1)).isEqualTo(Duration.ofSeconds(3));
        assertThat(backoff.delayAfter(2)).isEqualTo(Duration.ofSeconds(6));
        assertThat(backoff.delayAfter(3)).isEqualTo(Duration.ofSeconds(10));
    }

    @Test
    void aDelayEqualToTheCapIsKept() {
        Backoff backoff = new Backoff(Duration.ofSeconds(5), Duration.ofSeconds(20));

        assertThat(backoff.delayAfter(3)).isEqualTo(Duration.ofSeconds(20));
        assertThat(backoff.delayAfter(4)).isEqualTo(Duration.ofSeconds(20));
    }

    @Test
    void theDoublingStopsAfterThirtyFailuresSoHugeAttemptCountsNeverOverflow() {
        Backoff uncapped = new Backoff(Duration.ofMillis(1), Duration.ofDays(365_000));

        assertThat(uncapped.delayAfter(31)).isEqualTo(Duration.ofMillis(1L << 30));
        assertThat(uncapped.delayAfter(32)).isEqualTo(Duration.ofMillis(1L << 30));
        assertThat(uncapped.delayAfter(Integer.MAX_VALUE)).isEqualTo(Duration.ofMillis(1L << 30));
        assertThat(defaults.delayAfter(Integer.MAX_VALUE)).isEqualTo(Duration.ofMinutes(5));
    }

    @Test
    void noFailureYetCountsAsTheFirst() {
        assertThat(defaults.delayAfter(0)).isEqualTo(Duration.ofSeconds(5));
        assertThat(defaults.delayAfter(-3)).isEqualTo(Duration.ofSeconds(5));
    }

    @Test
    void equalRetryAndMaximumDelaysNeverGrow() {
        Backoff flat = new Backoff(Duration.ofSeconds(30), Duration.ofSeconds(30));

        assertThat(IntStream.rangeClosed(1, 5).mapToObj(flat::delayAfter)).containsOnly(Duration.ofSeconds(30));
    }
}
