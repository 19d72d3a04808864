package dev.projections.refresh;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** A callback failing at every refresh or event warns once a minute per projection, not once per failure. */
class WarningThrottleTest {

    private final AdjustableClock clock = new AdjustableClock(Clock.fixed(Instant.parse("2026-12-07T10:00:00Z"),
            ZoneOffset.UTC));
    private final WarningThrottle throttle = new WarningThrottle(clock);

    @Test
    void theFirstFailureWarnsTheNextOnesWaitAMinuteAndEachProjectionCountsApart() {
        assertThat(throttle.dueForWarning("orders")).isTrue();
        assertThat(throttle.dueForWarning("orders")).isFalse();
        assertThat(throttle.dueForWarning("customers")).as("another projection's first").isTrue();

        clock.advance(WarningThrottle.EVERY.minusMillis(1));
        assertThat(throttle.dueForWarning("orders")).isFalse();
        clock.advance(Duration.ofMillis(1));
        assertThat(throttle.dueForWarning("orders")).isTrue();
        assertThat(throttle.dueForWarning("orders")).isFalse();
    }

    @Test
    void ofManyThreadsFailingAtOnceOneWarns() throws Exception {
        throttle.dueForWarning("orders");
        clock.advance(WarningThrottle.EVERY);
        int threads = 8;
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<Boolean>> warned = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                warned.add(pool.submit(() -> {
                    start.await();
                    return throttle.dueForWarning("orders");
                }));
            }
            start.countDown();
            int warnings = 0;
            for (Future<Boolean> each : warned) {
                warnings += each.get() ? 1 : 0;
            }
            assertThat(warnings).isEqualTo(1);
        } finally {
            pool.shutdownNow();
        }
    }
}
